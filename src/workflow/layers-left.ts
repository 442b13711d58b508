import { seenPerRow, type ConflictRange, type GridSample, type WorkLeft } from './estimate.js';

/** The longest chain of points where each is in the same or a later row, at least as far along. */
function longestChain(points: Array<[number, number]>): number {
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  // Patience sorting: tails[k] is the smallest column a chain of k + 1 points can end at.
  const tails: number[] = [];
  for (const [, col] of points) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((tails[mid] as number) <= col) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = col;
  }
  return tails.length;
}

/**
 * The layers of conflicts still to settle: the longest chain of them in the grid's order (a cell
 * comes after another in the same or a later row and at least as far along). A cell is merged only
 * once every conflict before it is settled, so each autofill round and each hand-off settles about
 * one layer, whatever its width: the blocked cells stand at their rows' frontier, and the conflicts
 * expected in a row's cells not explored yet are spread evenly over them. Null when the grid has
 * said nothing yet.
 */
export function layersLeft(grid: GridSample, range: ConflictRange): number | null {
  if (range.perRow === null) return null;
  const width = grid.size.i2;
  const seen = seenPerRow(grid);
  const points: Array<[number, number]> = grid.blockedRows.map((r) => [r, (seen[r - 1] ?? 1) - 1]);
  // Rounded cumulatively, so rows of fractions still add up to the expected count.
  let carried = 0;
  range.perRow.forEach((expected, r) => {
    const n = Math.round(carried + expected) - Math.round(carried);
    carried += expected;
    const from = seen[r] ?? 0;
    for (let m = 0; m < n; m++) points.push([r + 1, from + ((width - from) * (m + 0.5)) / n]);
  });
  return longestChain(points);
}

/** The layers left and the cells the grid has still to merge (every cell is merged before the end). */
export function workLeft(grid: GridSample, range: ConflictRange): WorkLeft | null {
  const layers = layersLeft(grid, range);
  if (layers === null) return null;
  const filled = (grid.filled ?? []).reduce((a, b) => a + b, 0);
  return { layers, cells: Math.max(0, grid.size.i1 * grid.size.i2 - filled) };
}
