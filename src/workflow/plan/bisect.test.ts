import { describe, expect, it } from 'vitest';
import { bisectResolutions } from './bisect.js';
import { dominates, type Cell } from '../../imerge/cell.js';

/** A check that fails exactly when the tree of the probed cell contains one of the bad resolutions. */
function checkWithBad(bad: Cell[]) {
  return async (cell: Cell) => !bad.some((b) => dominates(cell, b));
}

const chain = (n: number): Cell[] => Array.from({ length: n }, (_, k) => ({ i1: k + 1, i2: k + 1 }));

describe('bisectResolutions', () => {
  it.each([0, 1, 2, 3, 4, 5, 6, 7])('finds bad resolution %i of 8 on a chain in at most 4 checks', async (badIndex) => {
    const cells = chain(8);
    const bad = cells[badIndex] as Cell;
    const result = await bisectResolutions(cells, checkWithBad([bad]));
    expect(result.culprits).toEqual([bad]);
    expect(result.probes.length).toBeLessThanOrEqual(Math.ceil(Math.log2(8)) + 1);
  });

  it('needs at most ceil(log2 N) checks when the failing batch check is known', async () => {
    for (const n of [2, 5, 16, 33]) {
      const cells = chain(n);
      for (let k = 0; k < n; k++) {
        const result = await bisectResolutions(cells, checkWithBad([cells[k] as Cell]), {
          knownFailing: cells[n - 1] as Cell,
        });
        expect(result.culprits).toEqual([cells[k]]);
        expect(result.probes.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
      }
    }
  });

  it('reports no culprit when every resolution passes', async () => {
    const result = await bisectResolutions(chain(4), checkWithBad([]));
    expect(result.culprits).toEqual([]);
    expect(result.probes).toHaveLength(1);
  });

  it('isolates a bad resolution among cells that are not totally ordered', async () => {
    const cells: Cell[] = [
      { i1: 1, i2: 5 },
      { i1: 2, i2: 4 },
      { i1: 3, i2: 3 },
      { i1: 4, i2: 2 },
      { i1: 5, i2: 1 },
    ];
    for (const bad of cells) {
      const result = await bisectResolutions(cells, checkWithBad([bad]), { knownFailing: { i1: 5, i2: 5 } });
      expect(result.culprits).toEqual([bad]);
      // every probe is a real resolved cell, never repeated
      expect(new Set(result.probes.map((p) => `${p.cell.i1}-${p.cell.i2}`)).size).toBe(result.probes.length);
    }
  });
});
