import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Git } from '../git/index.js';

/**
 * Spare worktrees: a resolved conflict's worktree kept for the next conflict instead of removed,
 * so the next one is a checkout of what differs between the two commits, not of the whole tree
 * (on a large repository the creation of a worktree is most of the time a conflict costs). At
 * most `merge.parallel` are kept, so the run's disk stays at the open conflicts', the checks' and
 * those being resolved; the run's end removes them with the rest.
 */

const PREFIX = 'spare-';

/** The spare worktrees' ids under `root`, oldest name first. */
export function spareIds(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => d.startsWith(PREFIX))
    .sort();
}

/** A spare id under `root` not taken yet. */
export function freeSpareId(root: string): string {
  const taken = new Set(spareIds(root));
  let k = 1;
  while (taken.has(`${PREFIX}${k}`)) k++;
  return `${PREFIX}${k}`;
}

/** What a run keeps in a worktree's own git directory about the conflict it presented. */
const STATE = ['splintercat-person', 'splintercat-kept', 'splintercat-snapshots.json', 'splintercat'];

/**
 * Forget the conflict worktree `wt` presented, so nothing of it reaches the next one: the run's
 * records in its git directory (whose person's it was, its snapshots, the takes) and its own refs.
 * Its files are reset when it is checked out again.
 */
export async function forgetConflict(wt: Git): Promise<void> {
  const gitDir = wt.boundGitDir as string;
  for (const name of STATE) rmSync(join(gitDir, name), { recursive: true, force: true });
  rmSync(join(gitDir, 'index.lock'), { force: true });
  await wt.run(['merge', '--abort'], { okExitCodes: [0, 1, 128] });
  for (const ref of await wt.lines(['for-each-ref', '--format=%(refname)', 'refs/worktree/']))
    await wt.run(['update-ref', '-d', ref], { okExitCodes: [0, 1, 128] });
}
