import { NEUTRALISED_CONFIG, type Git } from '../git/index.js';
import { MergeTreeBatch } from '../imerge/merge-tree-batch.js';
import { parseConflictText } from '../resolve/parse/markers.js';
import type { ConflictState } from '../store/run-state.js';
import type { ConflictHunkView } from './model.js';
import type { ConflictGitDetails } from './snapshot.js';
import { shortOid } from '../util/short-oid.js';

/** Bounds that keep a report of a huge conflict readable (and its HTML small). */
export const DIFF_LIMIT = 200_000;
const FILE_LIMIT = 2_000_000;
export const HUNKS_PER_FILE = 50;
export const HUNK_SIDE_LIMIT = 20_000;

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n… (${text.length - limit} more characters)`;
}

/** The conflicted tree and the resolution's tree of a conflict, whose diff is its resolution. */
export interface DiffPair {
  from: string;
  to: string;
}

type DiffPart = Pick<ConflictGitDetails, 'diff' | 'diffTruncated' | 'note'>;

/**
 * What git still knows about one conflict: the conflicted text of each file (the merge of
 * the two parent cells, redone in memory with diff3 markers) and the diff from it to the
 * recorded resolution. The parent cells come from the resolution commit's parents
 * ([above, left], as the engine records them) or, for an open conflict, from `parents`.
 * Objects pruned since the run leave a note instead.
 *
 * The diff is made afterwards, for every conflict of a report at once (`resolutionDiffs`): this
 * returns the hunks and the pair of trees it is between (null without a resolution, or when git no
 * longer has one: the details say why).
 */
export async function conflictHunks(
  git: Git,
  conflict: ConflictState,
  parents?: { above: string; left: string } | null,
  merge?: ConflictMerge,
): Promise<{ details: ConflictGitDetails; pair: DiffPair | null }> {
  const empty = (note: string): { details: ConflictGitDetails; pair: null } => ({
    details: { hunks: {}, diff: null, diffTruncated: false, note },
    pair: null,
  });
  let above = parents?.above ?? null;
  let left = parents?.left ?? null;
  let resolutionTree: string | null = null;
  if (conflict.resolutionCommit !== null) {
    // Through the long-lived object reader and the pooled shells: a report of 400 conflicts forks
    // no process per conflict.
    const commit = await git.readCommitCapped(conflict.resolutionCommit);
    const raw = commit === null ? '' : commit.content.toString('utf8');
    const [p1, p2] = commitParents(raw);
    resolutionTree = /^tree ([0-9a-f]{40,64})$/m.exec(raw)?.[1] ?? null;
    if (!p1 || !p2 || resolutionTree === null)
      return empty(`the resolution commit ${shortOid(conflict.resolutionCommit)} is no longer in the repository`);
    above = p1;
    left = p2;
  }
  if (above === null || left === null) return empty('the parent cells of this conflict are not known');
  const conflictTree = (await merge?.(above, left).catch(() => null)) ?? (await mergeOnce(git, above, left));
  if (conflictTree === null) return empty('the parent cells of this conflict are no longer in the repository');
  const hunks: Record<string, ConflictHunkView[]> = {};
  for (const f of conflict.files) {
    const blob = await git.readBlobCapped(`${conflictTree}:${f.path}`, FILE_LIMIT);
    if (!blob.ok || blob.text.includes('\0')) continue;
    hunks[f.path] = parseConflictText(blob.text, { path: f.path })
      .hunks.slice(0, HUNKS_PER_FILE)
      .map((h) => ({
        index: h.index,
        ours: clip(h.ours, HUNK_SIDE_LIMIT),
        base: h.base === null ? null : clip(h.base, HUNK_SIDE_LIMIT),
        theirs: clip(h.theirs, HUNK_SIDE_LIMIT),
        labels: h.labels,
      }));
  }
  const details = { hunks, diff: null, diffTruncated: false, note: null };
  return { details, pair: resolutionTree === null ? null : { from: conflictTree, to: resolutionTree } };
}

function bounded(diff: string): DiffPart {
  const truncated = diff.length > DIFF_LIMIT;
  return {
    diff: truncated ? diff.slice(0, diff.lastIndexOf('\n', DIFF_LIMIT) + 1) : diff,
    diffTruncated: truncated,
    note: null,
  };
}

/** The diff of one pair, limited to `paths`, by a `git diff` of its own. */
export async function resolutionDiff(git: Git, pair: DiffPair, paths: readonly string[]): Promise<DiffPart> {
  const diff = await git.run(
    ['diff', '--no-color', '--no-ext-diff', '--no-renames', '-U3', pair.from, pair.to, '--', ...paths],
    { okExitCodes: [0, 1, 128] },
  );
  if (diff.exitCode === 128)
    return { diff: null, diffTruncated: false, note: 'the resolution tree is no longer in the repository' };
  return bounded(diff.stdout);
}

/** A path git writes as it is in a `diff --git` line (no quoting, no space that makes the line ambiguous). */
const PLAIN_PATH = /^[A-Za-z0-9._/@+=,:~-]+$/;

/**
 * The diffs of many pairs through one `git diff-tree --stdin -p` (one process for a whole report),
 * each kept to the files of its conflict; null for a pair it cannot answer for sure (a path git
 * would quote, git failing), which the caller diffs by `resolutionDiff`.
 */
export async function resolutionDiffs(
  git: Git,
  items: ReadonlyArray<{ pair: DiffPair; paths: readonly string[] }>,
): Promise<Array<DiffPart | null>> {
  const plain = items.map((it) => it.paths.every((p) => PLAIN_PATH.test(p)));
  const asked = items.filter((_, k) => plain[k]);
  if (asked.length === 0) return items.map(() => null);
  const result = await git.run(['diff-tree', '--stdin', '-p', '--no-color', '--no-ext-diff', '--no-renames', '-U3'], {
    okExitCodes: [0, 1, 128],
    input: `${asked.map((it) => `${it.pair.from} ${it.pair.to}`).join('\n')}\n`,
  });
  if (result.exitCode !== 0) return items.map(() => null);
  // Each pair's output starts with the pair itself on a line: diff lines never look like that.
  const outputs = new Map<string, string[][]>();
  let current: string[] | null = null;
  for (const line of result.stdout.split('\n')) {
    if (/^[0-9a-f]{40,64} [0-9a-f]{40,64}$/.test(line)) {
      current = [];
      outputs.set(line, [...(outputs.get(line) ?? []), current]);
    } else if (line !== '') current?.push(line);
  }
  const taken = new Map<string, number>();
  return items.map((it, k) => {
    if (!plain[k]) return null;
    const key = `${it.pair.from} ${it.pair.to}`;
    const n = taken.get(key) ?? 0;
    taken.set(key, n + 1);
    const lines = outputs.get(key)?.[n];
    if (lines === undefined) return null;
    const wanted = new Set(it.paths.map((p) => `diff --git a/${p} b/${p}`));
    const kept: string[] = [];
    let keep = false;
    for (const line of lines) {
      if (line.startsWith('diff --git ')) keep = wanted.has(line);
      if (keep) kept.push(line);
    }
    return bounded(kept.length > 0 ? `${kept.join('\n')}\n` : '');
  });
}

/** The tree of the conflicted merge of two commits (diff3 markers), or null when it cannot be made. */
export type ConflictMerge = (above: string, left: string) => Promise<string | null>;

/** `conflictMerge` by a process of its own. */
async function mergeOnce(git: Git, above: string, left: string): Promise<string | null> {
  const merged = await git.run(
    ['-c', 'merge.conflictStyle=diff3', 'merge-tree', '--write-tree', '--no-messages', above, left],
    { okExitCodes: [0, 1, 128] },
  );
  const tree = merged.stdout.split('\n')[0]?.trim() ?? '';
  return merged.exitCode === 128 || !/^[0-9a-f]{40,64}$/.test(tree) ? null : tree;
}

/**
 * Conflicted merges through long-lived `merge-tree --stdin` processes (MergeTreeBatch) with diff3
 * markers: a first report of hundreds of conflicts starts no merge-tree per conflict. A merge the
 * batch cannot answer (a git without `--stdin`) returns null and is made by a process of its own.
 */
export function batchedConflictMerge(git: Git, lanes: number): { merge: ConflictMerge; close: () => void } {
  const n = NEUTRALISED_CONFIG.length;
  const diff3 = git.at(git.cwd, {
    worktree: true,
    env: {
      GIT_CONFIG_COUNT: String(n + 1),
      [`GIT_CONFIG_KEY_${n}`]: 'merge.conflictStyle',
      [`GIT_CONFIG_VALUE_${n}`]: 'diff3',
    },
  });
  const batch = new MergeTreeBatch(diff3, lanes);
  return {
    merge: async (above, left) => (await batch.merge(above, left))?.tree ?? null,
    close: () => {
      batch.close();
      diff3.close();
    },
  };
}

/** The parents a commit object names, in order. */
function commitParents(raw: string): string[] {
  const headers = raw.slice(0, Math.max(0, raw.indexOf('\n\n')));
  return [...headers.matchAll(/^parent ([0-9a-f]+)$/gm)].map((m) => m[1] as string);
}
