import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import { withReachablePath } from '../../util/long-path.js';

/** A file a person settled as a whole: one side's file throughout, or deleted (`git rm`). */
export type WholeFileChoice = 'ours' | 'theirs' | 'deleted';

/**
 * What the person's file is as a whole, against the two commits the cell merged (`ours` is the fork's side):
 * deleted, or the same blob as one side's file; null when it is neither (hunks chosen one by one, or edited).
 */
export async function wholeFileChoice(
  git: Git,
  worktree: string,
  path: string,
  sides: { ours: string | null; theirs: string | null },
): Promise<WholeFileChoice | null> {
  const file = join(worktree, path);
  if (!withReachablePath(file, existsSync)) return 'deleted';
  const mine = await git.run(['hash-object', '--', file], { okExitCodes: [0, 128] });
  if (mine.exitCode !== 0) return null;
  for (const side of ['ours', 'theirs'] as const) {
    const commit = sides[side];
    if (!commit) continue;
    const blob = await git.run(['rev-parse', '--verify', '-q', `${commit}:${path}`], { okExitCodes: [0, 1, 128] });
    if (blob.exitCode === 0 && blob.stdout.trim() === mine.stdout.trim()) return side;
  }
  return null;
}
