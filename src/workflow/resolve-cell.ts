import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createModelRung, forkInstructions, type ModelRung } from '../agents/index.js';
import type { FailureSummary } from '../checks/types.js';
import {
  hasMarkers,
  listUnmerged,
  recordHunkNumbers,
  resolveWorkingTree,
  stagesId,
  shellRegenerateRunner,
  type UnmergedEntry,
  type WorkingTreeFileResult,
} from '../resolve/index.js';
import type { ConflictFileState, HandoffFile } from '../store/run-state.js';
import type { Git } from '../git/index.js';
import type { Cell } from '../imerge/cell.js';
import type { PathChange } from '../git/worktree-snapshot.js';
import { cleanMergeWarnings, invalidGeneratedFiles } from './generated-check.js';
import { handoffFile, keepOrDelete } from './handoff/file.js';
import { suggestionHint, withBlocks } from './handoff/blocks.js';
import { changesSinceHandoff } from './handoff/snapshot.js';
import type { GridEngine, WorkflowContext } from './ports.js';

/** A person's file-level choice (keep or delete), by `fileChoiceKey`. */
export type FileChoices = Record<string, 'keep' | 'delete'>;

/** The kinds a person settles with `git add` (keep) or `git rm` (delete). */
const keepOrDeleteKinds = new Set(['modify/delete', 'rename/delete', 'rename/rename', 'file/directory']);

/** The same file-level conflict anywhere in a run: its path, kind and the blobs of its three sides. */
export function fileChoiceKey(entry: UnmergedEntry, kind: string): string {
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
  /** The target's tip, whose past merges the suggestions come from. */
  target?: string;
  /** The command that resumes the run, for what `splintercat take` prints once nothing is left. */
  next?: string;
}

type Worktree = ReturnType<WorkflowContext['git']['at']>;
type Learnt = NonNullable<WorkflowContext['ladder']['learnt']>;

/** The model rung for this cell's worktree, when a resolver model is configured and the resolver is not manual. */
function modelRungFor(
  ctx: WorkflowContext,
  wt: Worktree,
  prepared: PreparedCell,
  options: ResolveOptions,
  learnt: Learnt | null,
): ReturnType<typeof createModelRung> | null {
  if (!ctx.gateway || !ctx.config.llm.resolver_model || ctx.config.merge.resolver === 'manual') return null;
  return createModelRung({
    gateway: ctx.gateway,
    git: wt,
    workdir: prepared.path,
    runCheck: ctx.checks,
    details: prepared.details,
    failure: options.failure ?? null,
    maxTurns: ctx.config.llm.max_turns,
    log: ctx.log,
    instructions: forkInstructions(ctx.config.resolve.instructions, ctx.config.target.workdir),
    hints: learnt ? (file, hunk) => suggestionHint(learnt.suggest(file, hunk)) : null,
  });
}

/** The ladder on every unmerged path of the worktree (none of it with the manual resolver). */
function runLadder(
  ctx: WorkflowContext,
  wt: Worktree,
  prepared: PreparedCell,
  rung: ReturnType<typeof createModelRung> | null,
  learnt: Learnt | null,
): ReturnType<typeof resolveWorkingTree> {
  const { entries: unmerged, path: top } = prepared;
  if (ctx.config.merge.resolver === 'manual') return resolveWorkingTree(wt, { unmerged, top, rules: [], cache: null });
  return resolveWorkingTree(wt, {
    unmerged,
    top,
    rules: ctx.ladder.rules,
    cache: ctx.ladder.cache,
    fallback: rung?.fallback,
    syntax: ctx.ladder.syntax,
    regenerate: ctx.ladder.regenerate,
    runCommand: shellRegenerateRunner(),
    policy: ctx.ladder.policy,
    learnt: learnt?.applier() ?? null,
  });
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
    const hunks = r.remaining.flatMap((h) => (h.sides ? [{ number: h.number ?? h.index, sides: h.sides }] : []));
    return entry && hunks.length > 0 ? [{ path: r.path, stages: stagesId(entry), hunks }] : [];
  });
  await recordHunkNumbers(await wt.gitDir(false), files, next);
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
  const learnt = ctx.config.merge.resolver === 'manual' ? null : ctx.ladder.learnt;
  try {
    if (learnt) await learnt.load(options.target ?? 'HEAD');
    const rung = modelRungFor(ctx, wt, prepared, options, learnt);
    const results = await runLadder(ctx, wt, prepared, rung, learnt);
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
    const lines = replayed.map((x) => x.line);
    const choiceKeys = open.flatMap((r) => {
      const entry = entries.find((e) => e.path === r.path);
      return entry && r.decision && keepOrDeleteKinds.has(r.decision.kind)
        ? [{ path: r.path, key: fileChoiceKey(entry, r.decision.kind) }]
        : [];
    });
    if (left.length > 0) {
      await recordLeftHunks(wt, entries, open, options.next ?? 'splintercat continue');
      const handoff = open.map((r) => withBlocks(handoffFile(r), r, learnt));
      return {
        ok: false,
        cell,
        worktree: path,
        files,
        left,
        handoff,
        choiceKeys,
        transcripts,
        replayed: lines,
        warnings,
      };
    }
    const tree = await ctx.worktrees.writeTree(id);
    return { ok: true, cell, tree, files, transcripts, replayed: lines, warnings };
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
    const command = keepOrDelete(r.path)[choice];
    await wt.run(choice === 'keep' ? ['add', '--', r.path] : ['rm', '-q', '--', r.path]);
    r.status = 'resolved';
    replayed.push({
      path: r.path,
      line: `${r.path}: the person's earlier choice for the same ${r.decision.kind} (\`${command}\`) taken again`,
    });
  }
  return replayed;
}

/**
 * What `collectHumanResolution` found: the tree to record (with the person's own edits outside the
 * conflict's files since the hand-off, when one was recorded), or why the person's edit is not taken yet.
 */
export type HumanCollection =
  { ok: true; tree: string; outside?: PathChange[] } | { ok: false; left: string[]; why: string[] };

/**
 * After a person worked in the conflict's worktree: take what the hand-off told them to do —
 * edited files (staged or not), a modify/delete settled by `git rm` or `git add`, a committed
 * fix — and refuse only a file with conflict markers left (`conflict-marker-size` aware), a
 * path still unmerged and untouched, or (`refuse`) the very tree a failed check blamed.
 */
export async function collectHumanResolution(
  ctx: WorkflowContext,
  cell: Cell,
  options: { refuse?: { tree: string; why: string } } = {},
): Promise<HumanCollection> {
  const id = ctx.worktrees.conflictId(cell);
  const wt = await ctx.worktrees.worktreeGit(id);
  try {
    const unmerged = await listUnmerged(wt);
    const changed = new Set(
      (await wt.lines(['diff', '--name-only', 'HEAD'])).filter((f) => existsSync(join(wt.cwd, f))),
    );
    for (const e of unmerged) if (existsSync(join(wt.cwd, e.path))) changed.add(e.path);
    const paths = [...changed];
    const left: string[] = [];
    const why: string[] = [];
    if (paths.length > 0) {
      // `conflict-marker-size` per path (`path: conflict-marker-size: N`, or `unspecified`).
      const attrs = await wt.lines(['check-attr', 'conflict-marker-size', '--', ...paths]);
      const sizes = new Map(
        attrs
          .map((line) => /^(.*): conflict-marker-size: (\d+)$/.exec(line))
          .flatMap((m) => (m ? [[m[1], Number(m[2])] as const] : [])),
      );
      for (const f of paths) {
        if (!hasMarkers(await readFile(join(wt.cwd, f), 'latin1'), sizes.get(f))) continue;
        left.push(f);
        why.push(`${f} still has conflict markers: remove every marker line`);
      }
    }
    for (const e of unmerged) {
      if (left.includes(e.path)) continue;
      const kind = !e.ours || !e.theirs ? 'modify/delete' : 'both';
      const full = join(wt.cwd, e.path);
      // Deleted from disk without `git rm`: `add -A` stages the deletion.
      if (!existsSync(full)) continue;
      // Untouched: the file still holds what git left (the surviving side of a modify/delete, our side
      // of a binary). A text conflict was left with markers: a file without them equal to our side is
      // the person's choice of that side, not an untouched file.
      const onDisk = await wt.text(['hash-object', '--', e.path]);
      const presented = kind === 'modify/delete' ? (e.ours ?? e.theirs)?.oid : e.ours?.oid;
      if (
        presented !== undefined &&
        onDisk === presented &&
        (kind === 'modify/delete' || (await isBinaryBlob(wt, presented)))
      ) {
        left.push(e.path);
        const c = keepOrDelete(e.path);
        why.push(
          kind === 'modify/delete'
            ? `${e.path} is still unmerged: run \`${c.delete}\` to keep the deletion or \`${c.keep}\` to keep the file`
            : `${e.path} is still unmerged and unchanged: take one side (git checkout --ours -- ${e.path} && git add -- ${e.path}, or --theirs), or edit it`,
        );
        continue;
      }
    }
    // A generated file is taken whole: one left with a package pinned twice or not parsing is not taken.
    for (const bad of await invalidGeneratedFiles(
      wt,
      unmerged.map((e) => e.path).filter((p) => !left.includes(p)),
    )) {
      left.push(bad.path);
      why.push(bad.why);
    }
    if (left.length > 0) return { ok: false, left, why };
    const outside = await changesSinceHandoff(wt);
    const tree = await ctx.worktrees.writeTree(id);
    if (options.refuse && tree === options.refuse.tree) {
      const files = (await wt.lines(['diff', '--name-only', 'HEAD'])).slice(0, 20);
      return { ok: false, left: files, why: [options.refuse.why] };
    }
    return { ok: true, tree, ...(outside !== null ? { outside } : {}) };
  } finally {
    wt.close();
  }
}

/** git's own test: a blob with a NUL byte in its first 8,000 bytes is binary (git leaves it unmarked at a conflict). */
async function isBinaryBlob(git: Git, oid: string): Promise<boolean> {
  const blob = await git.readObject(oid);
  return blob !== null && blob.content.subarray(0, 8000).includes(0);
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
    status: 'needs_human' as const,
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

/** Who settled a file without hunks to say it, and how: the policy, a regenerate command, a rule. */
function fileLevel(result: WorkingTreeFileResult): Pick<ConflictFileState, 'decidedBy' | 'note'> {
  if (result.policy) return { decidedBy: 'policy', note: `the policy's ${result.policy}` };
  if (result.status === 'resolved' && result.note?.startsWith('regenerated with'))
    return { decidedBy: 'policy', note: result.note };
  if (result.decision?.resolution) return { decidedBy: 'rule', note: result.decision.description };
  return { decidedBy: null };
}
