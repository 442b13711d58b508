import { cellId } from './cell.js';

/**
 * The grid of an incremental merge, modelled on git-imerge 1.2.0's MergeState / Block / SubBlock.
 * Cell (i1, i2) merges commit i1 of branch 1 with commit i2 of branch 2; row 0 and column 0 are
 * the edges (the merge base and the commits of each branch).
 */

/** What is known about one cell. */
export interface GridCell {
  /** The merge commit believed correct, or null when unknown. */
  oid: string | null;
  /** True when `oid` was recorded by hand (`manual/I1-I2`), including the edges. */
  manual: boolean;
  /** True when this cell blocks the frontier (git-imerge's BLOCKED flag). */
  blocked: boolean;
}

/** A grid of cells; `len1` columns (i1) by `len2` rows (i2), edges included. */
export class Grid {
  private readonly cells: GridCell[][];

  constructor(
    readonly len1: number,
    readonly len2: number,
  ) {
    this.cells = Array.from({ length: len1 }, () =>
      Array.from({ length: len2 }, () => ({ oid: null, manual: false, blocked: false })),
    );
  }

  cell(i1: number, i2: number): GridCell {
    const row = this.cells[i1];
    const c = row?.[i2];
    if (!c) throw new RangeError(`cell ${cellId({ i1, i2 })} is out of range [0:${this.len1},0:${this.len2}]`);
    return c;
  }

  /** The whole grid as a block. */
  block(): Block {
    return new Block(this, 0, 0, this.len1, this.len2);
  }

  /** Blocked cells in git-imerge's order (i2 outer, i1 inner). */
  blockers(): [number, number][] {
    const out: [number, number][] = [];
    // Column by column (the cells' layout), sorted after: a few blockers among thousands of cells.
    this.cells.forEach((column, i1) => column.forEach((c, i2) => c.blocked && out.push([i1, i2])));
    return out.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  }
}

/** A Python-style slice bound: [start, stop) with negatives counted from the end, clamped. */
export interface Range {
  start?: number;
  stop?: number;
}

function toStartLen(r: Range | number, len: number): [number, number] {
  if (typeof r === 'number') {
    const i = r < 0 ? r + len : r;
    return [i, 1];
  }
  const clamp = (v: number | undefined, dflt: number): number => {
    if (v === undefined) return dflt;
    const x = v < 0 ? v + len : v;
    return Math.max(0, Math.min(len, x));
  };
  const start = clamp(r.start, 0);
  const stop = clamp(r.stop, len);
  return [start, Math.max(0, stop - start)];
}

/**
 * A rectangle of the grid with its own (0, 0) at (start1, start2). Invariant (as git-imerge's):
 * its row 0 and column 0 are known.
 */
export class Block {
  constructor(
    readonly grid: Grid,
    readonly start1: number,
    readonly start2: number,
    readonly len1: number,
    readonly len2: number,
  ) {}

  /** Sub-block by Python-slice semantics, e.g. `slice({stop: 3}, {start: 2})` = `block[:3, 2:]`. */
  slice(r1: Range | number, r2: Range | number): Block {
    const [s1, l1] = toStartLen(r1, this.len1);
    const [s2, l2] = toStartLen(r2, this.len2);
    return new Block(this.grid, this.start1 + s1, this.start2 + s2, l1, l2);
  }

  private norm(i1: number, i2: number): [number, number] {
    const a = i1 < 0 ? i1 + this.len1 : i1;
    const b = i2 < 0 ? i2 + this.len2 : i2;
    if (a < 0 || a >= this.len1 || b < 0 || b >= this.len2) {
      throw new RangeError(`index (${i1}, ${i2}) is out of range 0:${this.len1}, 0:${this.len2}`);
    }
    return [a, b];
  }

  /** The cell at block-relative (i1, i2); negative indexes count from the end. */
  cell(i1: number, i2: number): GridCell {
    const [a, b] = this.norm(i1, i2);
    return this.grid.cell(a + this.start1, b + this.start2);
  }

  /** Original (grid) indexes of block-relative (i1, i2). */
  original(i1: number, i2: number): [number, number] {
    const [a, b] = this.norm(i1, i2);
    return [a + this.start1, b + this.start2];
  }

  /** Block-relative indexes of grid (i1, i2), or null when outside this block. */
  convertOriginal(i1: number, i2: number): [number, number] | null {
    const a = i1 - this.start1;
    const b = i2 - this.start2;
    if (a < 0 || a >= this.len1 || b < 0 || b >= this.len2) return null;
    return [a, b];
  }

  known(i1: number, i2: number): boolean {
    return this.cell(i1, i2).oid !== null;
  }

  isBlocked(i1: number, i2: number): boolean {
    return this.cell(i1, i2).blocked;
  }

  toString(): string {
    return `[${this.start1}:${this.start1 + this.len1},${this.start2}:${this.start2 + this.len2}]`;
  }
}

/** Python's tuple comparison of two index pairs. */
export function compareIndexes(a: [number, number], b: [number, number]): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}
