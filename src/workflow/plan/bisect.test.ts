import { describe, expect, it } from 'vitest';
import { bisectResolutions } from './bisect.js';
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

describe('bisectResolutions', () => {
  it.each([0, 1, 2, 3, 4, 5, 6, 7])('finds bad resolution %i of 8 on a chain in at most 4 checks', async (badIndex) => {
    const cells = chain(8);
    const bad = cells[badIndex] as Cell;
    const result = await bisectResolutions(cells, checkWithBad([bad]));
    expect(result.culprits).toEqual([bad]);
    expect(result.probes.length).toBeLessThanOrEqual(Math.ceil(Math.log2(8)) + 1);
  });

  it('needs at most ceil(log2 N) checks when the failing batch check is known, chain or independent cells', async () => {
    for (const shape of [chain, antichain]) {
      for (const n of [2, 5, 16, 33]) {
        const cells = shape(n);
        for (let k = 0; k < n; k++) {
          const result = await bisectResolutions(cells, checkWithBad([cells[k] as Cell]), { knownFailing: true });
          expect(result.culprits).toEqual([cells[k]]);
          expect(result.probes.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
        }
      }
    }
  });

  it('reports no culprit when every resolution passes', async () => {
    const result = await bisectResolutions(chain(4), checkWithBad([]));
    expect(result.culprits).toEqual([]);
    expect(result.probes).toHaveLength(1);
  });

  it('checks independent cells one by one when their trees cannot be merged', async () => {
    const cells = antichain(5);
    for (const bad of cells) {
      const result = await bisectResolutions(cells, checkWithBad([bad], false), { knownFailing: true });
      expect(result.culprits).toEqual([bad]);
      expect(result.probes.every((p) => p.cells.length === 1)).toBe(true);
      expect(new Set(result.probes.map((p) => `${p.cells[0]?.i1}-${p.cells[0]?.i2}`)).size).toBe(result.probes.length);
    }
  });
});
