import { describe, expect, it } from 'vitest';
import { bisect } from './bisect.js';
import { dominates, type Cell } from '../../imerge/cell.js';

/** A check that fails exactly when the tree of the probed cells contains one of the bad resolutions. */
function checkWithBad(bad: Cell[], mergeable = true) {
  return async (cells: Cell[]) => {
    if (cells.length > 1 && !mergeable) return null;
    return !bad.some((b) => cells.some((c) => dominates(c, b)));
  };
}

const chain = (n: number): Cell[] => Array.from({ length: n }, (_, k) => ({ i1: k + 1, i2: k + 1 }));
/** Independent cells: one frontier's blockers (no cell dominates another). */
const antichain = (n: number): Cell[] => Array.from({ length: n }, (_, k) => ({ i1: k + 1, i2: n - k }));

describe('bisect, one probe at a time (width 1)', () => {
  it.each([0, 1, 2, 3, 4, 5, 6, 7])('finds bad resolution %i of 8 on a chain in at most 4 checks', async (badIndex) => {
    const cells = chain(8);
    const bad = cells[badIndex] as Cell;
    const result = await bisect(cells, checkWithBad([bad]));
    expect(result.culprits).toEqual([bad]);
    expect(result.probes.length).toBeLessThanOrEqual(Math.ceil(Math.log2(8)) + 1);
  });

  it('needs at most ceil(log2 N) checks when the failing batch check is known, chain or independent cells', async () => {
    for (const shape of [chain, antichain]) {
      for (const n of [2, 5, 16, 33]) {
        const cells = shape(n);
        for (let k = 0; k < n; k++) {
          const result = await bisect(cells, checkWithBad([cells[k] as Cell]), { knownFailing: true });
          expect(result.culprits).toEqual([cells[k]]);
          expect(result.probes.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
        }
      }
    }
  });

  it('reports no culprit when every resolution passes', async () => {
    const result = await bisect(chain(4), checkWithBad([]));
    expect(result.culprits).toEqual([]);
    expect(result.probes).toHaveLength(1);
  });

  it('checks independent cells one by one when their trees cannot be merged', async () => {
    const cells = antichain(5);
    for (const bad of cells) {
      const result = await bisect(cells, checkWithBad([bad], false), { knownFailing: true });
      expect(result.culprits).toEqual([bad]);
      expect(result.probes.every((p) => p.cells.length === 1)).toBe(true);
      expect(new Set(result.probes.map((p) => `${p.cells[0]?.i1}-${p.cells[0]?.i2}`)).size).toBe(result.probes.length);
    }
  });
});

/** A check failing when the probed tree holds a bad resolution, counting rounds (batches in flight together) and the widest. */
function countingCheck(bad: Cell[]) {
  const stats = { rounds: 0, widest: 0, inFlight: 0 };
  const probe = async (cells: Cell[]): Promise<boolean> => {
    if (stats.inFlight === 0) stats.rounds++;
    stats.inFlight++;
    stats.widest = Math.max(stats.widest, stats.inFlight);
    await Promise.resolve();
    stats.inFlight--;
    return !bad.some((b) => cells.some((cell) => dominates(cell, b)));
  };
  return { probe, stats };
}

describe('bisect with probes in parallel', () => {
  it('finds each bad resolution of a chain in about log(N)/log(width+1) rounds', async () => {
    for (const [n, width] of [
      [16, 3],
      [33, 4],
      [100, 4],
      [7, 2],
    ] as const) {
      const cells = chain(n);
      for (let k = 0; k < n; k++) {
        const { probe, stats } = countingCheck([cells[k] as Cell]);
        const result = await bisect(cells, probe, { knownFailing: true, width });
        expect(result.culprits).toEqual([cells[k]]);
        expect(stats.widest).toBeLessThanOrEqual(width);
        expect(stats.rounds).toBeLessThanOrEqual(Math.ceil(Math.log(n) / Math.log(width + 1)) + 1);
      }
    }
  });

  it('with no known failure checks the last cell in the first round; none bad: no culprit', async () => {
    const { probe, stats } = countingCheck([]);
    const result = await bisect(chain(4), probe, { width: 4 });
    expect(result.culprits).toEqual([]);
    expect(stats.rounds).toBe(1);
    expect(result.probes.some((p) => p.cells.some((c) => c.i1 === 4))).toBe(true);
  });

  it('isolates a bad resolution among cells that are not totally ordered, each set probed once', async () => {
    const cells: Cell[] = [
      { i1: 1, i2: 5 },
      { i1: 2, i2: 4 },
      { i1: 3, i2: 3 },
      { i1: 4, i2: 2 },
      { i1: 5, i2: 1 },
    ];
    for (const bad of cells) {
      const { probe } = countingCheck([bad]);
      const result = await bisect(cells, probe, { knownFailing: true, width: 3 });
      expect(result.culprits).toEqual([bad]);
      expect(new Set(result.probes.map((p) => p.cells.map((c) => `${c.i1}-${c.i2}`).join(' '))).size).toBe(
        result.probes.length,
      );
    }
  });

  it('width 1 is the sequential search', async () => {
    const cells = chain(8);
    const { probe, stats } = countingCheck([cells[5] as Cell]);
    const result = await bisect(cells, probe, { width: 1 });
    expect(result.culprits).toEqual([cells[5]]);
    expect(stats.widest).toBe(1);
    // The whole set, then the first half of the suspects each time: 1-8 fails, 1-4 passes, 5-6 fails, 5 passes.
    expect(result.probes.map((p) => [p.cells.map((c) => c.i1), p.passed])).toEqual([
      [[8], false],
      [[4], true],
      [[6], false],
      [[5], true],
    ]);
  });
});

describe('bisect with probes in parallel, where some trees cannot be made', () => {
  it('a round that cannot narrow the suspects hands over to the sequential search', async () => {
    const cells = chain(6);
    const bad = cells[4] as Cell;
    // Only a single cell's own tree can be made.
    const probe = async (set: Cell[]): Promise<boolean | null> =>
      set.length > 1 ? null : !set.some((c) => dominates(c, bad));
    const result = await bisect(cells, probe, { knownFailing: true, width: 3 });
    expect(result.culprits).toEqual([bad]);
  });

  it('without a known failure: a failing whole set is bisected, not handed over', async () => {
    const cells = chain(9);
    const { probe, stats } = countingCheck([cells[2] as Cell]);
    const result = await bisect(cells, probe, { width: 3 });
    expect(result.culprits).toEqual([cells[2]]);
    expect(stats.widest).toBeLessThanOrEqual(3);
  });
});
