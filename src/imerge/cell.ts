/** A cell of the merge grid: fork commit i1 merged with upstream commit i2. */
export interface Cell {
  i1: number;
  i2: number;
}

/** `I1-I2`: the id of a cell in git-imerge's ref names, the run state and the report. */
export function cellId(cell: Cell): string {
  return `${cell.i1}-${cell.i2}`;
}

/** The cell of an `I1-I2` id. */
export function parseCellId(id: string): Cell {
  const match = /^(\d+)-(\d+)$/.exec(id);
  if (!match) throw new Error(`not a cell id: ${id}`);
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
  return cells.filter((c) => !cells.some((d) => d !== c && dominates(d, c) && cellId(d) !== cellId(c)));
}
