import type { Git } from '../../git/index.js';

/** A file a person settled as a whole: one side's file throughout, or deleted (`git rm`). */
export type WholeFileChoice = 'ours' | 'theirs' | 'deleted';

/** `mode oid` of `path` in a tree-ish, null when it holds no such path. */
async function entryOf(git: Git, treeish: string, path: string): Promise<string | null> {
  const out = await git.run(['ls-tree', '-z', treeish, '--', path], { okExitCodes: [0, 128] });
  const m = out.exitCode === 0 ? /^(\d+) \w+ ([0-9a-f]+)\t/.exec(out.stdout) : null;
  return m ? `${m[1]} ${m[2]}` : null;
}

/**
 * What the person's file is as a whole in the tree recorded for them, against the two commits the
 * cell merged (`ours` is the fork's side): deleted, or one side's entry (bytes and mode: a link is
 * its target's name); null when it is neither (hunks chosen one by one, or edited). Read from the
 * recorded tree, not the disk, so a link is never followed and what is said is what was merged.
 */
export async function wholeFileChoice(
  git: Git,
  tree: string,
  path: string,
  sides: { ours: string | null; theirs: string | null },
): Promise<WholeFileChoice | null> {
  const mine = await entryOf(git, tree, path);
  if (mine === null) return 'deleted';
  for (const side of ['ours', 'theirs'] as const) {
    const commit = sides[side];
    if (commit && (await entryOf(git, commit, path)) === mine) return side;
  }
  return null;
}
