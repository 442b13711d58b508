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

/**
 * What git still knows about one conflict: the conflicted text of each file (the merge of
 * the two parent cells, redone in memory with diff3 markers) and the diff from it to the
 * recorded resolution. The parent cells come from the resolution commit's parents
 * ([above, left], as the engine records them) or, for an open conflict, from `parents`.
 * Objects pruned since the run leave a note instead.
 */
export async function conflictGitDetails(
  git: Git,
  conflict: ConflictState,
  parents?: { above: string; left: string } | null,
  merge?: ConflictMerge,
): Promise<ConflictGitDetails> {
  const empty = (note: string): ConflictGitDetails => ({ hunks: {}, diff: null, diffTruncated: false, note });
  let above = parents?.above ?? null;
  let left = parents?.left ?? null;
  if (conflict.resolutionCommit !== null) {
    // Through the long-lived object reader and the pooled shells: a report of 400 conflicts forks
    // no process per conflict.
    const commit = await git.readCommitCapped(conflict.resolutionCommit);
    const [p1, p2] = commit === null ? [] : commitParents(commit.content.toString('utf8'));
    if (!p1 || !p2)
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
  if (conflict.resolutionCommit === null) return { hunks, diff: null, diffTruncated: false, note: null };
  const paths = conflict.files.map((f) => f.path);
  const diff = await git.run(
    [
      'diff',
      '--no-color',
      '--no-ext-diff',
      '--no-renames',
      '-U3',
      conflictTree,
      `${conflict.resolutionCommit}^{tree}`,
      '--',
      ...paths,
    ],
    {
      okExitCodes: [0, 1, 128],
    },
  );
  if (diff.exitCode === 128)
    return { hunks, diff: null, diffTruncated: false, note: 'the resolution tree is no longer in the repository' };
  const truncated = diff.stdout.length > DIFF_LIMIT;
  return {
    hunks,
    diff: truncated ? diff.stdout.slice(0, diff.stdout.lastIndexOf('\n', DIFF_LIMIT) + 1) : diff.stdout,
    diffTruncated: truncated,
    note: null,
  };
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
