import { describe, expect, it } from 'vitest';
import { autoCompleteFrontier, type Merger } from './autofill.js';
import { findFirstFalse, findFrontierBlocks, mapKnownFrontier } from './frontier.js';
import { Grid } from './grid.js';

/** A grid whose edges are known, with fake commit ids "c<i1>-<i2>". */
function edgeGrid(len1: number, len2: number): Grid {
  const g = new Grid(len1, len2);
  for (let i1 = 0; i1 < len1; i1++) Object.assign(g.cell(i1, 0), { oid: `c${i1}-0`, manual: true });
  for (let i2 = 0; i2 < len2; i2++) Object.assign(g.cell(0, i2), { oid: `c0-${i2}`, manual: true });
  return g;
}

/**
 * A fake merger over a conflict predicate on (i1, i2): a "commit" is a string naming the highest
 * commit of each branch it contains, so any merge of two cells knows which cell it stands for.
 */
function fakeMerger(conflicts: (i1: number, i2: number) => boolean): Merger & { calls: number } {
  const pos = (c: string): [number, number] => {
    const m = /^c(\d+)-(\d+)$/.exec(c) ?? /^m(\d+)-(\d+)/.exec(c);
    return [Number(m?.[1]), Number(m?.[2])];
  };
  const merger = {
    calls: 0,
    mergeTree(c1: string, c2: string): Promise<string | null> {
      merger.calls++;
      const [a1, a2] = pos(c1);
      const [b1, b2] = pos(c2);
      const i1 = Math.max(a1, b1);
      const i2 = Math.max(a2, b2);
      return Promise.resolve(conflicts(i1, i2) ? null : `m${i1}-${i2}`);
    },
    commit(tree: string): Promise<string> {
      return Promise.resolve(tree);
    },
  };
  return merger;
}

describe('frontier bisection', () => {
  it('findFirstFalse bisects', async () => {
    expect(await findFirstFalse((i) => Promise.resolve(i < 7), 0, 20)).toBe(7);
    expect(await findFirstFalse(() => Promise.resolve(true), 2, 9)).toBe(9);
  });

  it('finds a staircase frontier and marks (1,1) blocked when nothing merges', async () => {
    const g = edgeGrid(8, 6);
    const conflict = (i1: number, i2: number): boolean => (i1 >= 3 && i2 >= 4) || (i1 >= 6 && i2 >= 2);
    const probe = (b: ReturnType<Grid['block']>, i1: number, i2: number): Promise<boolean> => {
      const [o1, o2] = b.original(i1, i2);
      return Promise.resolve(!conflict(o1, o2));
    };
    const blocks = await findFrontierBlocks(g.block(), probe);
    expect(blocks.map((b) => [b.len1, b.len2])).toEqual([
      [3, 6],
      [6, 4],
      [8, 2],
    ]);
    const g2 = edgeGrid(4, 4);
    expect(await findFrontierBlocks(g2.block(), () => Promise.resolve(false))).toEqual([]);
    expect(g2.cell(1, 1).blocked).toBe(true);
  });

  it('autofill stops at the leftmost blocker with few merges, and the known frontier covers what merged', async () => {
    const g = edgeGrid(21, 21);
    const merger = fakeMerger((i1, i2) => i1 >= 12 && i2 >= 9);
    const saves: boolean[] = [];
    const out = await autoCompleteFrontier({
      grid: g,
      name: 'n',
      merger,
      goal: 'merge',
      manual: false,
      jobs: 2,
      save: async (final) => void saves.push(final),
    });
    expect(out).toEqual({ complete: false, blocker: [12, 9] });
    expect(g.blockers()).toEqual([[12, 9]]);
    // Outline merges plus O(log n) probes, far fewer than the 400 cells.
    expect(merger.calls).toBeLessThan(120);
    const frontier = mapKnownFrontier(g.block());
    expect(frontier.blocks.map((b) => [b.len1, b.len2])).toEqual([
      [12, 21],
      [21, 9],
    ]);
    // A save offered after each step, and one that must be made when it stops.
    expect(saves.length).toBeGreaterThan(1);
    expect(saves.filter((f) => f)).toEqual([true]);
    expect(saves.at(-1)).toBe(true);
  });

  it('a non-monotone cell (probe ok, outline merge fails) becomes a blocker instead of crashing', async () => {
    const g = edgeGrid(6, 6);
    // Only (2,5) fails: the corner probe (5,5) succeeds, then the outline hits (2,5).
    const merger = fakeMerger((i1, i2) => i1 === 2 && i2 === 5);
    const out = await autoCompleteFrontier({
      grid: g,
      name: 'n',
      merger,
      goal: 'merge',
      manual: false,
      jobs: 1,
      save: () => Promise.resolve(),
    });
    expect(out.complete).toBe(false);
    expect(g.blockers().length).toBeGreaterThan(0);
  });

  it('goal full fills cell by cell', async () => {
    const g = edgeGrid(3, 3);
    const saves: boolean[] = [];
    const out = await autoCompleteFrontier({
      grid: g,
      name: 'n',
      merger: fakeMerger(() => false),
      goal: 'full',
      manual: false,
      jobs: 1,
      save: async (final) => void saves.push(final),
    });
    expect(out).toEqual({ complete: true });
    expect(saves.at(-1)).toBe(true);
    for (let i1 = 0; i1 < 3; i1++) for (let i2 = 0; i2 < 3; i2++) expect(g.cell(i1, i2).oid).not.toBeNull();
  });
});

describe('mapKnownFrontier on cells known here and there (a grid rebuilt from history)', () => {
  /** The search as git-imerge writes it, without remembering cells it backed out of: the oracle. */
  function plainFrontier(g: Grid): Array<[number, number]> {
    const block = g.block();
    const ok = (a: number, b: number): boolean =>
      a >= 0 && b >= 0 && a < block.len1 && b < block.len2 && block.known(a, b) && !block.isBlocked(a, b);
    const path: [number, number, boolean][] = [];
    let [i1, i2, down] = [block.len1 - 1, 0, true];
    for (;;) {
      if (down) {
        if (i2 === block.len2 - 1 || !ok(i1, i2 + 1)) down = false;
        else path.push([i1, i2++, true]);
      } else if (i1 === 0) {
        path.push([i1, i2, false]);
        const out: Array<[number, number]> = [];
        for (let k = 0; k + 1 < path.length; k++)
          if (path[k]![2] && !path[k + 1]![2]) out.push([path[k + 1]![0] + 1, path[k + 1]![1] + 1]);
        return out.sort((x, y) => x[0] - y[0]);
      } else if (ok(i1 - 1, i2)) {
        path.push([i1--, i2, false]);
        down = true;
      } else {
        for (;;) {
          [i1, i2, down] = path.pop()!;
          if (down) break;
        }
        down = false;
      }
    }
  }

  /** Edges known, and each inner cell known with probability `density` (a fixed pseudo-random draw). */
  function scattered(len1: number, len2: number, density: number, start: number): Grid {
    const g = edgeGrid(len1, len2);
    let x = start;
    for (let i1 = 1; i1 < len1; i1++)
      for (let i2 = 1; i2 < len2; i2++) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        if (x / 2 ** 31 < density) Object.assign(g.cell(i1, i2), { oid: `c${i1}-${i2}`, manual: true });
      }
    return g;
  }

  it('finds the same frontier as the plain search', () => {
    for (let start = 1; start <= 300; start++) {
      const g = scattered(9, 9, 0.3 + (start % 6) / 10, start);
      const blocks = mapKnownFrontier(g.block()).blocks.map((b) => [b.len1, b.len2]);
      expect(blocks, `start ${start}`).toEqual(plainFrontier(g));
    }
  });

  it('backs out of a known region cut off from the edge once, not once per path into it', () => {
    // Every cell with i1 >= 10 known, the column before it not: each of the region's C(49, 20)
    // staircases dead-ends, which the plain search would walk one by one.
    const g = edgeGrid(30, 30);
    for (let i1 = 10; i1 < 30; i1++)
      for (let i2 = 1; i2 < 30; i2++) Object.assign(g.cell(i1, i2), { oid: `c${i1}-${i2}`, manual: true });
    expect(mapKnownFrontier(g.block()).blocks.map((b) => [b.len1, b.len2])).toEqual([[1, 30]]);
    const small = edgeGrid(8, 8);
    for (let i1 = 3; i1 < 8; i1++)
      for (let i2 = 1; i2 < 8; i2++) Object.assign(small.cell(i1, i2), { oid: `c${i1}-${i2}`, manual: true });
    expect(mapKnownFrontier(small.block()).blocks.map((b) => [b.len1, b.len2])).toEqual(plainFrontier(small));
  });
});
