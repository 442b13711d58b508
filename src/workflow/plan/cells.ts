/** A cell of the merge grid: fork commit i1 merged with upstream commit i2. */
export interface Cell {
  i1: number;
  i2: number;
}

export function cellKey(cell: Cell): string {
  return `${cell.i1}-${cell.i2}`;
}

export function parseCellKey(key: string): Cell {
  const match = /^(\d+)-(\d+)$/.exec(key);
  if (!match) throw new Error(`not a cell key: ${key}`);
  return { i1: Number(match[1]), i2: Number(match[2]) };
}

/** True when cell `a` is contained in the rectangle below-left of `b` (so b's tree embodies a's resolution). */
export function dominates(b: Cell, a: Cell): boolean {
  return a.i1 <= b.i1 && a.i2 <= b.i2;
}

/** Grid order: by anti-diagonal, then by i1 — a linear extension of domination. */
export function compareCells(a: Cell, b: Cell): number {
  return a.i1 + a.i2 - (b.i1 + b.i2) || a.i1 - b.i1;
}

/** The smallest cell that dominates every given cell. */
export function joinCells(cells: readonly Cell[]): Cell {
  return cells.reduce((acc, c) => ({ i1: Math.max(acc.i1, c.i1), i2: Math.max(acc.i2, c.i2) }), { i1: 0, i2: 0 });
}

/** The cells of a set not dominated by another cell of the set. */
export function maximalCells(cells: readonly Cell[]): Cell[] {
  return cells.filter((c) => !cells.some((d) => d !== c && dominates(d, c) && cellKey(d) !== cellKey(c)));
}
