import { replaceFileWithin } from '../util/replace-file.js';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { withReachablePath } from '../util/long-path.js';
import { join } from 'node:path';
import type { Git } from '../git/index.js';
import { nullLogger, type Logger } from '../log/logger.js';
import type { ResolutionCache } from './cache/resolution-cache.js';
import { decideFileConflict, type FileDecision, type FileSide } from './file-level.js';
import { recallWholeFile, type RecalledFile } from './file-recall.js';
import { resolveConflictedFile, type LadderFallback } from './ladder.js';
import { decodeBytes, encodeText, encodingOf, type TextEncoding } from './parse/encoding.js';
import { generatedFile, type GeneratedFile } from './data/generated-files.js';
import { mergeFileTexts } from './parse/merge-file.js';
import { parseConflictText } from './parse/markers.js';
import {
  isLockfile,
  lockfileNote,
  regenerateCommandFor,
  regenerateLockfile,
  type RegenerateRunner,
} from './data/lockfiles.js';
import type { SyntaxSwitches } from './syntax/syntax-merge.js';
import { listUnmerged, readStageBytes, type UnmergedEntry } from './parse/stages.js';
import type { ResolutionRule } from './rules/index.js';
import { describeDecision, policyFor, type PathRule } from './policy/path-policy.js';
import type { ConflictedFile, ConflictHunk, HunkResolution } from './types.js';

export interface WorkingTreeOptions {
  /** Paths relative to the top level; empty = every unmerged path. */
  paths?: string[];
  /** The working tree's top-level directory, when the caller knows it (default: asked of git). */
  top?: string;
  /** The unmerged entries, when the caller has just listed them (`listUnmerged`); `paths` is then ignored. */
  unmerged?: UnmergedEntry[];
  rules?: readonly ResolutionRule[];
  cache?: ResolutionCache | null;
  fallback?: LadderFallback;
  /** The syntax-aware rung's switches (`LadderSetup.syntax`); default off. */
  syntax?: SyntaxSwitches;
  /** `resolve.regenerate`: lockfile glob to the command that rewrites it (`LadderSetup.regenerate`). */
  regenerate?: Readonly<Record<string, string>>;
  /** Runs a regenerate command in the worktree; without it configured lockfiles are left with a note. */
  runCommand?: RegenerateRunner;
  /** `resolve.paths` (`LadderSetup.policy`): the fork's decision per glob. */
  policy?: readonly PathRule[];
  /** A learnt suggestion taken without asking (`resolve.learnt: apply`), per path and hunk. */
  learnt?: ((path: string, hunk: ConflictHunk) => HunkResolution | null) | null;
  /**
   * Give a person's whole remembered file again where its three sides are those they resolved
   * (`file-recall.ts`). Only for a merge git has just presented: the file holds no edit of anyone's.
   */
  fileMemory?: boolean;
  log?: Logger;
}

export interface RemainingHunk {
  index: number;
  startLine: number;
  endLine: number;
  /** The hunk's number as the ladder saw it (stable while other hunks are resolved), and its three sides. */
  number?: number;
  sides?: { base: string | null; ours: string; theirs: string };
}

export interface WorkingTreeFileResult {
  path: string;
  /** resolved = written and staged; partial = some hunks left in markers; open = nothing resolved. */
  status: 'resolved' | 'partial' | 'open';
  resolutions: HunkResolution[];
  remaining: RemainingHunk[];
  /** Set for file-level conflicts (modify/delete, binary, ...). */
  decision?: FileDecision;
  /** Why the file was left alone, when it was. */
  note?: string;
  /** The `resolve.paths` rule that decided a file-level conflict (`glob: decision`), when one did. */
  policy?: string;
  /** Set for a generated file (a lockfile, pip-compile output): decided whole, never block by block. */
  generated?: GeneratedFile;
  /** Set when the person's whole remembered file (or its deletion) was given again. */
  recalled?: RecalledFile['recalled'];
}

/**
 * Run the ladder over the unmerged paths of a working tree (`git` must work on
 * its top level): fully resolved files are written and staged, partly resolved
 * ones keep markers only on the hunks left. A file the user already edited
 * outside its conflict blocks is resolved from its own text, never regenerated.
 */
export async function resolveWorkingTree(git: Git, options: WorkingTreeOptions = {}): Promise<WorkingTreeFileResult[]> {
  const log = options.log ?? nullLogger;
  const top = options.top ?? (await git.topLevel());
  const entries = options.unmerged ?? (await listUnmerged(git, options.paths ?? []));
  const regenerate = options.regenerate ?? {};
  const isLock = (path: string): boolean => isLockfile(path) || regenerateCommandFor(path, regenerate) !== null;
  // Lockfiles last: they are regenerated from the manifests once those are resolved.
  const ordered = [...entries.filter((e) => !isLock(e.path)), ...entries.filter((e) => isLock(e.path))];
  const results: WorkingTreeFileResult[] = [];
  for (const entry of ordered) {
    let result: WorkingTreeFileResult | null = null;
    if (isLock(entry.path)) {
      const manifestsDone = results.every((r) => r.status === 'resolved');
      if (regenerateCommandFor(entry.path, regenerate) && options.runCommand && manifestsDone) {
        result = await regenerateEntry(git, top, entry.path, regenerate, options.runCommand);
      }
    }
    result ??= await resolveEntry(git, top, entry, options);
    if (isLock(entry.path) && result.status !== 'resolved' && result.note === undefined) {
      result.note = regenerateCommandFor(entry.path, regenerate)
        ? `${entry.path} is a lockfile with a resolve.regenerate command, not run: ${options.runCommand ? 'other conflicted files (its manifest) are not resolved yet' : 'no command runner was given to the ladder'}`
        : lockfileNote(entry.path);
    }
    log.info({ path: entry.path, status: result.status, left: result.remaining.length }, 'resolve');
    results.push(result);
  }
  // Report in the order git listed the paths.
  const at = new Map(entries.map((e, i) => [e.path, i]));
  return results.sort((a, b) => (at.get(a.path) ?? 0) - (at.get(b.path) ?? 0));
}

/**
 * Regenerate a lockfile with its `resolve.regenerate` command: start from our
 * version (a command cannot read a file full of markers), run the command in
 * the worktree, stage the result.
 */
async function regenerateEntry(
  git: Git,
  top: string,
  path: string,
  regenerate: Readonly<Record<string, string>>,
  run: RegenerateRunner,
): Promise<WorkingTreeFileResult> {
  await git.run(['checkout', '--ours', '--', path], { okExitCodes: [0, 1] });
  const outcome = await regenerateLockfile(path, top, regenerate, run);
  if (outcome.status === 'regenerated') {
    await git.run(['add', '--', path]);
    return {
      path,
      status: 'resolved',
      resolutions: [],
      remaining: [],
      note: `regenerated with \`${outcome.command}\``,
    };
  }
  if (outcome.status === 'failed') {
    return {
      path,
      status: 'open',
      resolutions: [],
      remaining: [],
      note: `\`${outcome.command}\` failed (exit ${outcome.exitCode ?? 'killed'}): ${outcome.output.split('\n').slice(-5).join(' | ')}; the fork's version of ${path} is in place: run the command here yourself once what it needs is fixed, then \`git add -- ${path}\``,
    };
  }
  return { path, status: 'open', resolutions: [], remaining: [], note: outcome.note };
}

async function resolveEntry(
  git: Git,
  top: string,
  entry: UnmergedEntry,
  options: WorkingTreeOptions,
): Promise<WorkingTreeFileResult> {
  const full = join(top, entry.path);
  const stageBytes = await readStageBytes(git, entry);
  const diskBytes = diskEntryBytes(full);
  // Every version of the file is read, rewritten and written back with one encoding, so a file
  // that is not UTF-8 keeps every byte outside the hunks the ladder resolved.
  const encoding = encodingOf(diskBytes, stageBytes.base, stageBytes.ours, stageBytes.theirs);
  const decode = (b: Buffer | null): string | null => (b === null ? null : decodeBytes(b, encoding));
  const texts = { base: decode(stageBytes.base), ours: decode(stageBytes.ours), theirs: decode(stageBytes.theirs) };
  const side = (s: UnmergedEntry['base'], text: string | null): FileSide | undefined =>
    s ? { mode: s.mode, oid: s.oid, text } : undefined;
  const decision = decideFileConflict({
    path: entry.path,
    base: side(entry.base, texts.base),
    ours: side(entry.ours, texts.ours),
    theirs: side(entry.theirs, texts.theirs),
  });
  const policy = policyFor(entry.path, options.policy ?? []);
  // A generated file is taken whole from one side (then regenerated): a block-by-block merge of it
  // is text its tool never wrote (a package pinned twice, a lockfile that does not parse).
  const generated = generatedFile(entry.path, [texts.ours, texts.theirs, texts.base]);
  const byPolicy = await applyFilePolicy(git, entry, decision, policy, generated !== null);
  if (byPolicy) return byPolicy;
  if (options.fileMemory && options.cache) {
    const onDisk = diskBytes === null ? null : decodeBytes(diskBytes, encoding);
    const recalled = await recallWholeFile(git, top, {
      entry,
      cache: options.cache,
      decision,
      policy,
      onDisk,
    });
    if (recalled) return recalled;
  }
  if (decision.kind !== 'content' && decision.kind !== 'add/add') {
    if (decision.resolution === null)
      return { path: entry.path, status: 'open', resolutions: [], remaining: [], decision };
    await applyFileDecision(git, entry.path, decision.resolution.action);
    return { path: entry.path, status: 'resolved', resolutions: [], remaining: [], decision };
  }
  if (decision.resolution !== null) {
    await applyFileDecision(git, entry.path, decision.resolution.action);
    return { path: entry.path, status: 'resolved', resolutions: [], remaining: [], decision };
  }

  // The kind goes with the result (add/add or content), so a hand-off names it as \`take\` does.
  return {
    ...(await resolveContent(git, top, entry, options, { diskBytes, encoding, texts, policy, generated })),
    decision,
  };
}

/** What resolveEntry read of a content conflict, for the ladder. */
interface ContentRead {
  diskBytes: Buffer | null;
  encoding: ReturnType<typeof encodingOf>;
  texts: { base: string | null; ours: string | null; theirs: string | null };
  policy: ReturnType<typeof policyFor>;
  generated: ReturnType<typeof generatedFile>;
}

/** The ladder on a file whose contents conflict, written back (and added when nothing is left). */
async function resolveContent(
  git: Git,
  top: string,
  entry: UnmergedEntry,
  options: WorkingTreeOptions,
  { diskBytes, encoding, texts, policy, generated }: ContentRead,
): Promise<WorkingTreeFileResult> {
  if (diskBytes === null)
    return {
      path: entry.path,
      status: 'open',
      resolutions: [],
      remaining: [],
      note: 'the file is missing from the working tree',
    };
  const onDisk = decodeBytes(diskBytes, encoding);
  if (generated !== null) return wholeFile(entry.path, onDisk, generated);
  const file = await pickConflictedFile(git, entry.path, onDisk, texts, encoding);
  if (file.hunks.length === 0) {
    return {
      path: entry.path,
      status: 'open',
      resolutions: [],
      remaining: [],
      note: 'no conflict markers left: check the file and `git add` it yourself',
    };
  }
  // The model reads and writes text: a file that is not UTF-8 goes to a person untouched by it.
  const fallback = encoding === 'utf8' ? options.fallback : undefined;
  const { learnt } = options;
  const result = await resolveConflictedFile(file, {
    path: entry.path,
    rules: options.rules,
    cache: options.cache,
    fallback,
    log: options.log,
    sides: texts,
    syntax: options.syntax,
    policy,
    learnt: learnt ? (hunk) => learnt(entry.path, hunk) : null,
  });
  const remaining = result.remaining.map((h) => ({ index: h.index, startLine: h.startLine, endLine: h.endLine }));
  const noted =
    options.fallback && !fallback && remaining.length > 0
      ? { note: 'not valid UTF-8: the model was not asked (it works on text); a person decides, every byte kept' }
      : policy?.decision.kind === 'human'
        ? { note: policyNote(policy) }
        : {};
  if (result.resolutions.length === 0) {
    // Nothing written: report the blocks where they are in the file on disk.
    const asIs = parseConflictText(onDisk, { path: entry.path, markerSize: file.markerSize });
    return {
      path: entry.path,
      status: 'open',
      resolutions: [],
      remaining: numbered(asIs.hunks, result.remaining),
      ...noted,
    };
  }
  // Never through a link a check may have put in the file's place.
  replaceFileWithin(top, entry.path, encodeText(result.text, encoding));
  if (remaining.length === 0) {
    await git.run(['add', '--', entry.path]);
    return { path: entry.path, status: 'resolved', resolutions: result.resolutions, remaining };
  }
  // Locations of what is left are those of the rewritten file; its hunks keep their number in the
  // file as git left it (the one the resolved hunks carry), so no two hunks of a file share one.
  const rewritten = parseConflictText(result.text, { path: entry.path, markerSize: file.markerSize });
  return {
    path: entry.path,
    status: 'partial',
    resolutions: result.resolutions,
    remaining: numbered(rewritten.hunks, result.remaining),
    ...noted,
  };
}

/** A generated file left for a decision on the whole file: its blocks as git wrote them, none resolved. */
function wholeFile(path: string, onDisk: string, generated: GeneratedFile): WorkingTreeFileResult {
  const remaining = parseConflictText(onDisk, { path }).hunks.map((h) => ({
    index: h.index,
    startLine: h.startLine,
    endLine: h.endLine,
  }));
  return { path, status: 'open', resolutions: [], remaining, generated };
}

/**
 * The blocks left where they are in the file now, each with the number and sides the ladder
 * knew it by (the ladder's `remaining`, in the same order), so a hand-off can name it stably.
 */
function numbered(now: readonly ConflictHunk[], ladder: readonly ConflictHunk[]): RemainingHunk[] {
  return now.map((h, i) => {
    const was = ladder[i];
    return {
      // A hunk keeps its number in the file as git left it, so no two hunks of a file share one.
      index: was?.index ?? h.index,
      startLine: h.startLine,
      endLine: h.endLine,
      ...(was ? { number: was.index, sides: { base: was.base, ours: was.ours, theirs: was.theirs } } : {}),
    };
  });
}

/** What a file the policy hands to a person says about it. */
function policyNote(rule: PathRule): string {
  return `the fork's policy hands ${rule.glob} to a person (resolve.paths)`;
}

/**
 * A conflict decided whole (modify/delete, binary, mode, ..., or a generated file) the policy
 * decides: `ours` or `theirs` keeps that side's file, or its deletion where that side deleted it;
 * `human` leaves it open, even where a rule would decide it. Null when the policy says nothing of
 * it (no rule, a content conflict merged by hunk, `union`, `regenerate`).
 */
async function applyFilePolicy(
  git: Git,
  entry: UnmergedEntry,
  decision: FileDecision,
  rule: PathRule | null,
  generated: boolean,
): Promise<WorkingTreeFileResult | null> {
  if (rule === null || (!generated && (decision.kind === 'content' || decision.kind === 'add/add'))) return null;
  if (rule.decision.kind === 'human')
    return { path: entry.path, status: 'open', resolutions: [], remaining: [], decision, note: policyNote(rule) };
  const side = rule.decision.kind;
  if (side !== 'ours' && side !== 'theirs') return null;
  const action = entry[side] === undefined ? 'delete' : side === 'ours' ? 'keep-ours' : 'keep-theirs';
  await applyFileDecision(git, entry.path, action);
  return {
    path: entry.path,
    status: 'resolved',
    resolutions: [],
    remaining: [],
    decision,
    policy: `${rule.glob}: ${describeDecision(rule.decision)}`,
  };
}

/**
 * The file as the ladder should see it: the working-tree text when its blocks
 * carry a base (diff3/zdiff3); otherwise the diff3 re-merge of the index stages,
 * but only when that has the same clean text and sides as the working tree, or
 * the working tree is still exactly git's merge of those stages (so no edit of
 * the user's is lost).
 */
async function pickConflictedFile(
  git: Git,
  path: string,
  onDisk: string,
  texts: { base: string | null; ours: string | null; theirs: string | null },
  encoding: TextEncoding,
): Promise<ConflictedFile> {
  const current = parseConflictText(onDisk, { path });
  if (current.hunks.every((h) => h.base !== null) || texts.ours === null || texts.theirs === null) return current;
  const labels = current.hunks[0]?.labels ?? {};
  const merged = await mergeFileTexts(git, {
    base: texts.base ?? '',
    ours: texts.ours,
    theirs: texts.theirs,
    markerSize: current.markerSize,
    labels: { ours: labels.ours, theirs: labels.theirs, base: 'base' },
    encoding,
  });
  const regenerated = parseConflictText(merged.text, { path, markerSize: current.markerSize });
  const sameShape =
    regenerated.segments.length === current.segments.length &&
    regenerated.segments.every((s, i) => {
      const c = current.segments[i];
      if (s.kind === 'text') return c?.kind === 'text' && c.text === s.text;
      return c?.kind === 'conflict' && c.hunk.ours === s.hunk.ours && c.hunk.theirs === s.hunk.theirs;
    });
  if (sameShape) return regenerated;
  // git's default style trims lines both sides share out of a block, so the diff3 blocks can be
  // wider; a file that is exactly git's own merge-style output holds no edit of the user's.
  const asGitWrote = await mergeFileTexts(git, {
    base: texts.base ?? '',
    ours: texts.ours,
    theirs: texts.theirs,
    markerSize: current.markerSize,
    labels: { ours: labels.ours, theirs: labels.theirs },
    style: 'merge',
    encoding,
  });
  return asGitWrote.text === onDisk ? regenerated : current;
}

async function applyFileDecision(git: Git, path: string, action: string): Promise<void> {
  if (action === 'delete') await git.run(['rm', '--quiet', '--force', '--', path]);
  else if (action === 'keep-ours' || action === 'keep-theirs') {
    await git.run(['checkout', action === 'keep-ours' ? '--ours' : '--theirs', '--', path]);
    await git.run(['add', '--', path]);
  }
}

/**
 * What the working tree holds at `full` as git would store it: a file's bytes, a link's target
 * (never what it points to), null for nothing or a directory (a submodule's).
 */
function diskEntryBytes(full: string): Buffer | null {
  return withReachablePath(full, (path) => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined || st.isDirectory()) return null;
    return st.isSymbolicLink() ? Buffer.from(readlinkSync(path)) : readFileSync(path);
  });
}
