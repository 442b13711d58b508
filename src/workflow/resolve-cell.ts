import { createModelRung, forkInstructions, type ModelRung } from '../agents/index.js';
import type { FailureSummary } from '../checks/types.js';
import {
  isGitlink,
  recordHunkNumbers,
  stageSide,
  resolveWorkingTree,
  stagesId,
  sandboxedRegenerateRunner,
  type UnmergedEntry,
  type WorkingTreeFileResult,
  type WorkingTreeOptions,
} from '../resolve/index.js';
import type { WholeFileDecision } from '../store/flow-choices.js';
import type { ConflictFileState, HandoffFile } from '../store/run-state.js';
import { unknownRung } from '../store/rung.js';
import type { Cell } from '../imerge/cell.js';
import { cleanMergeWarnings } from './generated-warnings.js';
import { handoffFile, keepOrDelete, suggestionHint, withHunks } from './handoff/index.js';
import { withFileSuggestions } from './handoff/file-suggestion.js';
import { dropsReviewHandoff } from './drops/review.js';
import { unreasonedDrops, withCellDrops } from './drops/index.js';
import type { GridEngine, WorkflowContext } from './ports.js';

/** A person's file-level choice (keep or delete), by `fileChoiceKey`. */
type FileChoices = Record<string, 'keep' | 'delete'>;

/** The kinds a person settles with `git add` (keep) or `git rm` (delete). */
const keepOrDeleteKinds = new Set(['modify/delete', 'rename/delete', 'rename/rename', 'file/directory']);

/** The same file-level conflict anywhere in a run: its path, kind and the blobs of its three sides. */
function fileChoiceKey(entry: UnmergedEntry, kind: string): string {
  return `${entry.path} ${kind} ${entry.base?.oid ?? '-'}:${entry.ours?.oid ?? '-'}:${entry.theirs?.oid ?? '-'}`;
}

export type CellResolution = (
  | { ok: true; cell: Cell; tree: string; files: ConflictFileState[] }
  | {
      ok: false;
      cell: Cell;
      worktree: string;
      files: ConflictFileState[];
      left: string[];
      handoff: HandoffFile[];
      /** The keep-or-delete choices asked of the person, by `fileChoiceKey` (remembered once they choose). */
      choiceKeys: Array<{ path: string; key: string }>;
    }
) & {
  /** File-level choices a person made earlier in the run, taken again here (one line each, for the journal). */
  replayed?: string[];
  /** The resolver model's conversations (for the journal and the report); empty when it was not asked. */
  transcripts?: ModelRung['outcomes'];
  /** Files whose model resolution was not confirmed (candidates disagreed, the reviewer did not accept). */
  withheld?: ModelRung['withheld'];
  /** Generated files git merged cleanly at this cell that are no longer valid (one line each). */
  warnings?: string[];
};

/** A blocked cell presented in its own worktree, ready for the ladder. */
export interface PreparedCell {
  cell: Cell;
  details: Awaited<ReturnType<GridEngine['conflictCell']>>;
  /** The worktree holding the conflicted merge. */
  path: string;
  entries: Awaited<ReturnType<WorkflowContext['worktrees']['presentMerge']>>['entries'];
}

/** Present the merge of a blocked cell's two parent cells in the cell's own worktree. */
export async function prepareCell(ctx: WorkflowContext, engine: GridEngine, cell: Cell): Promise<PreparedCell> {
  const details = await engine.conflictCell(cell);
  const { path, entries } = await ctx.worktrees.presentMerge(
    ctx.worktrees.conflictId(cell),
    details.above,
    details.left,
  );
  return { cell, details, path, entries };
}

interface ResolveOptions {
  failure?: FailureSummary | string | null;
  fileChoices?: FileChoices;
  /** Paths decided once for this merge (`WorkingTreeOptions.decidedOnce`). */
  decidedOnce?: Readonly<Record<string, WholeFileDecision>>;
  /** The target's tip, whose past merges the suggestions come from. */
  target?: string;
  /** The command that resumes the run, for what `splintercat take` prints once nothing is left. */
  next?: string;
}

type Worktree = ReturnType<WorkflowContext['git']['at']>;
type Learnt = NonNullable<WorkflowContext['ladder']['learnt']>;

/** The model rung for this cell's worktree, when a resolver model is configured and the resolver is not the person. */
function modelRungFor(
  ctx: WorkflowContext,
  wt: Worktree,
  prepared: PreparedCell,
  options: ResolveOptions,
  learnt: Learnt | null,
): ReturnType<typeof createModelRung> | null {
  if (!ctx.gateway || !ctx.config.llm.resolver_model || ctx.config.merge.resolver === 'person') return null;
  return createModelRung({
    gateway: ctx.gateway,
    git: wt,
    workdir: prepared.path,
    runCheck: ctx.checks,
    details: prepared.details,
    failure: options.failure ?? null,
    maxTurns: ctx.config.llm.max_turns,
    candidates: ctx.config.llm.candidates,
    log: ctx.log,
    instructions: forkInstructions(ctx.config.resolve.instructions, ctx.config.target.workdir),
    hints: learnt ? (file, hunk) => suggestionHint(learnt.suggest(file, hunk)) : null,
  });
}

/** What the ladder is given on the cell's unmerged paths (none of its rungs with the person as resolver). */
function ladderOptions(
  ctx: WorkflowContext,
  prepared: PreparedCell,
  rung: ReturnType<typeof createModelRung> | null,
  learnt: Learnt | null,
  decidedOnce: ResolveOptions['decidedOnce'],
): WorkingTreeOptions {
  const { entries: unmerged, path: top } = prepared;
  const once = decidedOnce ? { decidedOnce } : {};
  if (ctx.config.merge.resolver === 'person') return { unmerged, top, rules: [], cache: null, ...once };
  return {
    unmerged,
    top,
    ...once,
    rules: ctx.ladder.rules,
    cache: ctx.ladder.cache,
    fileMemory: true,
    fallback: rung?.fallback,
    syntax: ctx.ladder.syntax,
    regenerate: ctx.ladder.regenerate,
    runCommand: sandboxedRegenerateRunner(ctx.config, { logger: ctx.log }),
    policy: ctx.ladder.policy,
    learnt: learnt?.applier() ?? null,
  };
}

/** Keep the numbers of the hunks left, so `splintercat take` can name them, with the command that resumes. */
async function recordLeftHunks(
  wt: Worktree,
  entries: PreparedCell['entries'],
  open: Awaited<ReturnType<typeof resolveWorkingTree>>,
  next: string,
): Promise<void> {
  const files = open.flatMap((r) => {
    const entry = entries.find((e) => e.path === r.path);
    const hunks = r.remaining.flatMap((h) =>
      h.sides ? [{ number: h.number ?? h.index, sides: h.sides, startLine: h.startLine, endLine: h.endLine }] : [],
    );
    // A file without hunks to number is recorded too, so a whole-file take there knows what to run then.
    return entry ? [{ path: r.path, stages: stagesId(entry), hunks }] : [];
  });
  await recordHunkNumbers(await wt.gitDir(false), files, { then: next, top: wt.cwd });
}

/**
 * Resolve a presented cell down the ladder (cache, rules, model) in its worktree: run the
 * ladder on every unmerged path and — when nothing is left — write the tree. The tree is
 * recorded by the caller, in grid order, so the outcome never depends on timing.
 */
export async function resolvePrepared(
  ctx: WorkflowContext,
  prepared: PreparedCell,
  options: ResolveOptions = {},
): Promise<CellResolution> {
  const { cell, path, entries } = prepared;
  const id = ctx.worktrees.conflictId(cell);
  const wt = await ctx.worktrees.worktreeGit(id);
  const learnt = ctx.config.merge.resolver === 'person' ? null : ctx.ladder.learnt;
  try {
    if (learnt) await learnt.load(options.target ?? 'HEAD');
    const rung = modelRungFor(ctx, wt, prepared, options, learnt);
    const results = await resolveWorkingTree(wt, ladderOptions(ctx, prepared, rung, learnt, options.decidedOnce));
    const replayed = await replayFileChoices(wt, entries, results, options.fileChoices ?? {});
    const warnings = await cleanMergeWarnings(
      wt,
      entries.map((e) => e.path),
    );
    const files = results.map((r) => ({
      ...toFileState(r),
      ...(replayed.some((x) => x.path === r.path) ? { decidedBy: 'cache' as const } : {}),
    }));
    const open = results.filter((r) => r.status !== 'resolved');
    const left = open.map((r) => r.path);
    const transcripts = rung?.outcomes ?? [];
    const lines = [...recalledLines(results), ...replayed.map((x) => x.line)];
    const choiceKeys = open.flatMap((r) => {
      const entry = entries.find((e) => e.path === r.path);
      return entry && r.decision && keepOrDeleteKinds.has(r.decision.kind)
        ? [{ path: r.path, key: fileChoiceKey(entry, r.decision.kind) }]
        : [];
    });
    if (left.length > 0) {
      await recordLeftHunks(wt, entries, open, options.next ?? 'splintercat continue');
      const handoff = await withFileSuggestions(
        open.map((r) => withHunks(handoffFile(r), r, learnt)),
        ctx.config.merge.resolver === 'person' ? null : ctx.ladder.cache,
      );
      return {
        ok: false,
        cell,
        worktree: path,
        files,
        left,
        handoff,
        choiceKeys,
        transcripts,
        withheld: rung?.withheld ?? [],
        replayed: lines,
        warnings,
      };
    }
    const tree = await ctx.worktrees.writeTree(id);
    const { above, left: upstream } = prepared.details;
    const audited = await withCellDrops(wt, { above, left: upstream, tree }, files, ctx.log);
    const review = ctx.config.resolve.review_drops === 'ask' ? unreasonedDrops(audited) : [];
    if (review.length > 0) {
      const handoff = dropsReviewHandoff(review);
      const paths = review.map((f) => f.path);
      return {
        ok: false,
        cell,
        worktree: path,
        files: audited,
        left: paths,
        handoff,
        choiceKeys,
        transcripts,
        replayed: lines,
        warnings,
      };
    }
    return { ok: true, cell, tree, files: audited, transcripts, replayed: lines, warnings };
  } finally {
    wt.close();
  }
}

/**
 * A person's file-level choice made earlier in this run (same path, kind and blobs) is taken
 * again instead of asking twice: `git add` (keep) or `git rm` (delete). Marks the results resolved.
 */
async function replayFileChoices(
  wt: ReturnType<WorkflowContext['git']['at']>,
  entries: UnmergedEntry[],
  results: WorkingTreeFileResult[],
  choices: FileChoices,
): Promise<Array<{ path: string; line: string }>> {
  const replayed: Array<{ path: string; line: string }> = [];
  for (const r of results) {
    if (r.status === 'resolved' || !r.decision || !keepOrDeleteKinds.has(r.decision.kind)) continue;
    const entry = entries.find((e) => e.path === r.path);
    const choice = entry ? choices[fileChoiceKey(entry, r.decision.kind)] : undefined;
    if (!choice) continue;
    const present = entry?.ours ? 'ours' : 'theirs';
    const command = keepOrDelete(r.path, entry && isGitlink(entry) ? present : undefined)[choice];
    // The side kept is the one present, as the person kept it: a submodule's as its commit id.
    if (choice === 'keep' && entry) await stageSide(wt, entry, present);
    else await wt.run(choice === 'keep' ? ['add', '--', r.path] : ['rm', '-q', '--', r.path]);
    r.status = 'resolved';
    replayed.push({
      path: r.path,
      line: `${r.path}: the person's earlier choice for the same ${r.decision.kind} (\`${command}\`) taken again`,
    });
  }
  return replayed;
}

/** What the memory of whole files and the sides decided once for the merge gave again, one line each (for the journal). */
function recalledLines(results: WorkingTreeFileResult[]): string[] {
  return results.flatMap((r) => ((r.recalled || r.decidedOnce) && r.note ? [`${r.path}: ${r.note}`] : []));
}

function toFileState(result: WorkingTreeFileResult): ConflictFileState {
  const resolved = result.resolutions.map((r, i) => ({
    index: r.hunkIndex ?? i + 1,
    status: 'resolved' as const,
    rung: r.rung,
    by: r.by,
    cacheKey: r.cacheKey ?? null,
  }));
  const remaining = result.remaining.map((h) => ({
    index: h.index,
    status: 'needs_person' as const,
    rung: null,
    by: null,
    cacheKey: null,
  }));
  return {
    path: result.path,
    kind: result.decision?.kind ?? 'content',
    hunks: [...resolved, ...remaining].sort((a, b) => a.index - b.index),
    ...fileLevel(result),
  };
}

/** Who settled a file without hunks to say it, and how: the rung of the file-level stage that settled it. */
function fileLevel(result: WorkingTreeFileResult): Pick<ConflictFileState, 'decidedBy' | 'note'> {
  const { rung } = result;
  switch (rung) {
    case 'policy':
      return { decidedBy: rung, note: `the policy's ${result.policy ?? '?'}` };
    case 'cache':
    case 'generated':
      return { decidedBy: rung, ...(result.note ? { note: result.note } : {}) };
    case 'rule':
      return { decidedBy: rung, ...(result.decision ? { note: result.decision.description } : {}) };
    case 'syntax':
    case 'learnt':
    case 'model':
    case 'person':
    case undefined:
      return { decidedBy: null };
    default:
      return unknownRung(rung);
  }
}
