import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from '../git/index.js';
import type { Grid } from './grid.js';
import { looseObjectIds, objectsDirectory } from './loose-objects.js';
import { imergePrefix } from './state.js';

/** When `compactRepository` packs: loose refs of the merge, loose objects and packs of the repository. */
export interface CompactLimits {
  refs: number;
  objects: number;
  packs: number;
}

// Packs: under git's gc.autoPackLimit (50), past which the person's next commit would start a full
// `git gc` of the repository.
const DEFAULT_LIMITS: CompactLimits = { refs: 200, objects: 2000, packs: 24 };

/**
 * The limits for a merge with `refs` refs. Packing the refs rewrites all of them (`packed-refs`),
 * while each loose one costs every read of the grid: late in a 300 x 80 grid (11,000 refs, ~100 new
 * per `continue`) `pack-refs` took 50 to 200 ms, about every second `continue` with a fixed limit of
 * 200 (issue 14). With the limit at 4 x sqrt(refs), the packing and the loose refs read between two
 * packings cost about the same, and their sum grows as the square root of the grid, not as the grid.
 */
export function compactionLimits(refs: number): CompactLimits {
  return { ...DEFAULT_LIMITS, refs: Math.max(DEFAULT_LIMITS.refs, Math.round(4 * Math.sqrt(refs))) };
}

/** What `compactRepository` did. */
export interface Compaction {
  /** Loose refs of the merge found (all packed when at or over the limit). */
  looseRefs: number;
  /** Loose objects found (all packed when at or over the limit, or when packs are rolled up). */
  looseObjects: number;
  /** Packs found (the smaller ones rolled up into one when at or over the limit). */
  packs: number;
  packedRefs: boolean;
  packedObjects: boolean;
  rolledUpPacks: boolean;
}

/**
 * Keep a long incremental merge from slowing git down: each merge writes loose objects (merge-tree's
 * trees, the commit) and each recorded cell a loose ref, and git's cost per command grows with
 * them. Measured on a 300 x 80 grid half done (20,000 loose objects, 5,000 loose refs): a
 * `merge-tree` took 146 ms instead of 49 ms once they were packed, and reading the grid's refs
 * 210 ms instead of 20 ms; so each `continue` cost more as the grid filled. Past the limits, the
 * refs are packed (`git pack-refs --all`, as `git gc` does) and the loose objects are put in one new
 * pack (`git pack-objects` of exactly those objects, no delta search, then `git prune-packed`): only
 * what is loose is touched, whatever the size of the repository, and nothing is deleted that is not
 * in a pack. An autofill adds a pack at each save (scratch-objects.ts); past the limit on packs, the
 * small ones and the loose objects are rolled up into one (`git repack -d --geometric=2`, which
 * leaves the large packs as they are: 18 ms for 30 packs of a 5,000-file repository). It searches
 * no new deltas and keeps those the autofill's packs have (scratch-objects.ts): rolling up all
 * 55,000 objects of a 300 x 80 grid took 0.68 s without the search, 1.47 s with it. Counting is a
 * directory listing, no process.
 */
export async function compactRepository(
  git: Git,
  name: string,
  limits: CompactLimits = DEFAULT_LIMITS,
): Promise<Compaction> {
  const objects = await objectsDirectory(git);
  const [looseRefs, loose, packs] = await Promise.all([
    countLooseRefs(join(objects, '..', imergePrefix(name))),
    looseObjectIds(objects),
    countPacks(join(objects, 'pack')),
  ]);
  const packedRefs = looseRefs >= limits.refs;
  if (packedRefs) await git.run(['pack-refs', '--all']);
  const rolledUpPacks = packs >= limits.packs;
  const packedObjects = rolledUpPacks || loose.length >= limits.objects;
  if (rolledUpPacks) {
    await git.run(['repack', '-d', '-q', '--geometric=2', '--window=0']);
  } else if (packedObjects) {
    await git.run(['pack-objects', '-q', '--window=0', join(objects, 'pack', 'pack')], {
      input: `${loose.join('\n')}\n`,
    });
    await git.run(['prune-packed', '-q']);
  }
  return { looseRefs, looseObjects: loose.length, packs, packedRefs, packedObjects, rolledUpPacks };
}

/**
 * Extend git's commit-graph to every commit of the grid (a new layer of what is not in it yet; a
 * repository without one gets one). Each `merge-tree` looks for the merge base of two cells, a walk
 * through the grid's history; without generation numbers that walk reads commit after commit, and it
 * grows with the grid. Measured on a 300 x 80 grid with 130 conflicts done: one `merge-tree` took
 * 33 ms without a commit-graph and 7 ms with one, so a `continue` that made 188 merges took 5.7 s
 * instead of 1.3 s. Given the lowest recorded cell of each column (each reaches the cells above
 * it and to its left), git writes only the commits the graph lacks: a few ms per autofill.
 */
export async function extendCommitGraph(git: Git, grid: Grid): Promise<void> {
  const tips: string[] = [];
  for (let i1 = 0; i1 < grid.len1; i1++) {
    for (let i2 = grid.len2 - 1; i2 >= 0; i2--) {
      const oid = grid.cell(i1, i2).oid;
      if (oid === null) continue;
      tips.push(oid);
      break;
    }
  }
  if (tips.length === 0) return;
  await git.run(['commit-graph', 'write', '--split', '--stdin-commits', '--no-progress'], {
    input: `${tips.join('\n')}\n`,
  });
}

async function countLooseRefs(dir: string): Promise<number> {
  let n = 0;
  for (const kind of ['auto', 'manual']) {
    try {
      n += (await readdir(join(dir, kind))).length;
    } catch {
      // none of this kind (or a ref backend without loose files)
    }
  }
  return n;
}

async function countPacks(dir: string): Promise<number> {
  try {
    return (await readdir(dir)).filter((f) => f.endsWith('.pack')).length;
  } catch {
    return 0;
  }
}
