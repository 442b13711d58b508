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
 * while each loose one costs every read of the grid, so a fixed limit packs ever more often as the
 * grid grows. With the limit at 4 x sqrt(refs), the packing and the loose refs read between two
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
 * them, so without packing each `continue` would cost more as the grid filled. Past the limits, the
 * refs are packed (`git pack-refs --all`, as `git gc` does) and the loose objects are put in one new
 * pack (`git pack-objects` of exactly those objects, no delta search, then `git prune-packed`): only
 * what is loose is touched, whatever the size of the repository, and nothing is deleted that is not
 * in a pack. An autofill adds a pack at each save (scratch-objects.ts); past the limit on packs, the
 * small ones and the loose objects are rolled up into one (`git repack -d --geometric=2`, which
 * leaves the large packs as they are). It searches no new deltas and keeps those the autofill's
 * packs have (scratch-objects.ts), since a delta search would cost more than the bytes it saves.
 * Counting is a directory listing, no process.
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
 * grows with the grid; with them it stops early. Given the lowest recorded cell of each column (each
 * reaches the cells above it and to its left), git writes only the commits the graph lacks.
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
