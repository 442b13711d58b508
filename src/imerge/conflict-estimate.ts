import type { Git } from '../git/index.js';
import { conflictPaths, mergeTree } from './merge-tree.js';

/** What a plain merge of the two tips leaves conflicted: a lower bound of the work, before the grid is explored. */
export interface ConflictEstimate {
  /** Paths the plain merge leaves conflicted. */
  files: number;
  /** Conflict blocks in them; a path conflicted as a whole (modify/delete, binary, a directory in the way) counts one. */
  hunks: number;
}

const MARKER = /^<{7} /gm;

/**
 * Merge the two tips once, in memory (`git merge-tree`), and count what conflicts. The incremental merge meets
 * at least these conflicts (each is in some cell of the grid) and often more (cells on the way conflict where
 * the tips do not), so this is a lower bound: what the planner can know before any cell is merged.
 */
export async function estimateConflicts(
  git: Git,
  ours: string,
  theirs: string,
  signal?: AbortSignal,
): Promise<ConflictEstimate> {
  const result = await mergeTree(git, ours, theirs, signal);
  if (result.clean) return { files: 0, hunks: 0 };
  const paths = conflictPaths(result);
  let hunks = 0;
  for (const p of paths) {
    const text = p.kind === 'modify/delete' ? null : await git.readBlobText(`${result.tree}:${p.path}`);
    hunks += Math.max(1, text?.match(MARKER)?.length ?? 0);
  }
  return { files: paths.length, hunks };
}
