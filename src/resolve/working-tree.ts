import { replaceFileWithin } from '../util/replace-file.js';
import { join } from 'node:path';
import type { Git } from '../git/index.js';
import { nullLogger } from '../log/logger.js';
import { decideFileConflict, type FileSide } from './file-level.js';
import { policyNote } from './file-stages.js';
import { climb, hunksAtHand, ladderResult } from './ladder.js';
import type {
  HunksAtHand,
  LadderResult,
  PathAtHand,
  RemainingHunk,
  WorkingTreeFileResult,
  WorkingTreeOptions,
} from './ladder-types.js';
import { decodeBytes, encodeText, encodingOf, type TextEncoding } from './parse/encoding.js';
import { generatedFile } from './data/generated-files.js';
import { mergeFileTexts } from './parse/merge-file.js';
import { parseConflictText } from './parse/markers.js';
import { isLockfile, lockfileNote, regenerateCommandFor } from './data/lockfiles.js';
import { diskEntryBytes } from './parse/disk-entry.js';
import { isGitlink, listUnmerged, readStageBytes, type UnmergedEntry } from './parse/stages.js';
import { policyFor } from './policy/path-policy.js';
import type { ConflictedFile, ConflictHunk } from './types.js';

export type { RemainingHunk, WorkingTreeFileResult, WorkingTreeOptions } from './ladder-types.js';

/**
 * Run the ladder over the unmerged paths of a working tree (`git` must work on
 * its top level): fully resolved files are written and staged, partly resolved
 * ones keep markers only on the hunks left. A file the user already edited
 * outside its conflict hunks is resolved from its own text, never regenerated.
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
    // One path down the ladder: settled whole by a file-level stage, or its hunks answered and written back.
    const at = await readPath(
      git,
      top,
      entry,
      options,
      results.every((r) => r.status === 'resolved'),
    );
    const climbed = await climb(at, () => contentHunks(at));
    // The kind goes with the result (add/add or content), so a hand-off names it as `take` does.
    const result =
      'settled' in climbed
        ? climbed.settled
        : {
            ...(await writeBack(at, climbed.hunks, ladderResult(climbed.hunks, climbed.answers))),
            decision: at.decision,
          };
    const locked = isLock(entry.path) ? withLockfileNote(result, options) : result;
    // A submodule is a commit id in the index: the hand-off's commands must not treat it as a file.
    const noted = isGitlink(entry) ? { ...locked, submodule: true } : locked;
    log.info({ path: entry.path, status: noted.status, left: noted.remaining.length }, 'resolve');
    results.push(noted);
  }
  // Report in the order git listed the paths.
  const at = new Map(entries.map((e, i) => [e.path, i]));
  return results.sort((a, b) => (at.get(a.path) ?? 0) - (at.get(b.path) ?? 0));
}

/** A lockfile left unresolved says why: its command was not run yet, or how to regenerate it. */
function withLockfileNote(result: WorkingTreeFileResult, options: WorkingTreeOptions): WorkingTreeFileResult {
  if (result.status === 'resolved' || result.note !== undefined) return result;
  const { path } = result;
  const note = regenerateCommandFor(path, options.regenerate ?? {})
    ? `${path} is a lockfile with a resolve.regenerate command, not run: ${options.runCommand ? 'other conflicted files (its manifest) are not resolved yet' : 'no command runner was given to the ladder'}`
    : lockfileNote(path);
  return { ...result, note };
}

/** Everything the file-level stages look at, read once: the stages, the file on disk, the file-level decision, the policy. */
async function readPath(
  git: Git,
  top: string,
  entry: UnmergedEntry,
  options: WorkingTreeOptions,
  othersResolved: boolean,
): Promise<PathAtHand> {
  const stageBytes = await readStageBytes(git, entry);
  const diskBytes = diskEntryBytes(join(top, entry.path));
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
  // A generated file is taken whole from one side (then regenerated): a hunk-by-hunk merge of it
  // is text its tool never wrote (a package pinned twice, a lockfile that does not parse).
  const generated = generatedFile(entry.path, [texts.ours, texts.theirs, texts.base]);
  return { git, top, entry, options, diskBytes, encoding, texts, decision, policy, generated, othersResolved };
}

/**
 * The hunks of a content conflict for the hunk-level stages, as the file on disk holds them; a
 * file without markers left is left to a person. The model reads and writes text: a file that is
 * not UTF-8 goes to a person untouched by it.
 */
async function contentHunks(at: PathAtHand): Promise<{ hunks: HunksAtHand } | { settled: WorkingTreeFileResult }> {
  const { entry, options, encoding, texts } = at;
  const onDisk = decodeBytes(at.diskBytes ?? Buffer.alloc(0), encoding);
  const file = await pickConflictedFile(at.git, entry.path, onDisk, texts, encoding);
  if (file.hunks.length === 0) {
    const note = 'no conflict markers left: check the file and `git add` it yourself';
    return {
      settled: { path: entry.path, status: 'open', resolutions: [], remaining: [], decision: at.decision, note },
    };
  }
  const { learnt } = options;
  return {
    hunks: hunksAtHand(file, {
      path: entry.path,
      rules: options.rules,
      cache: options.cache,
      fallback: encoding === 'utf8' ? options.fallback : undefined,
      log: options.log,
      sides: texts,
      syntax: options.syntax,
      policy: at.policy,
      learnt: learnt ? (hunk) => learnt(entry.path, hunk) : null,
    }),
  };
}

/** The hunk-level answers written into the file (and added when nothing is left), or the file left as it is. */
async function writeBack(at: PathAtHand, hunks: HunksAtHand, result: LadderResult): Promise<WorkingTreeFileResult> {
  const { entry, options, policy, encoding } = at;
  const { file } = hunks;
  const onDisk = decodeBytes(at.diskBytes ?? Buffer.alloc(0), encoding);
  const remaining = result.remaining.map((h) => ({ index: h.index, startLine: h.startLine, endLine: h.endLine }));
  const noted =
    options.fallback && !hunks.options.fallback && remaining.length > 0
      ? { note: 'not valid UTF-8: the model was not asked (it works on text); a person decides, every byte kept' }
      : policy?.decision.kind === 'person'
        ? { note: policyNote(policy) }
        : hunks.note
          ? { note: hunks.note }
          : {};
  if (result.resolutions.length === 0) {
    // Nothing written: report the hunks where they are in the file on disk.
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
  replaceFileWithin(at.top, entry.path, encodeText(result.text, encoding));
  if (remaining.length === 0) {
    await at.git.run(['add', '--', entry.path]);
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

/**
 * The hunks left where they are in the file now, each with the number and sides the ladder
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

/**
 * The file as the ladder should see it: the working-tree text when its hunks
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
  // git's default style trims lines both sides share out of a hunk, so the diff3 hunks can be
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
