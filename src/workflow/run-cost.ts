/**
 * What the run's own work costs, fitted from the stretches between hand-offs: each `continue`'s
 * fixed work (loading the run, the grid, the hand-off's records), each autofill round (the engine
 * finding the next layer of conflicts), each cell the rounds merge, and each conflict resolved. A
 * stretch's cells vary far more than its rounds (the mid-run's wide layers merge thousands, the
 * last ones hundreds), and the cells left are known exactly, not estimated. Most of a continue's cost is
 * fixed, so a run whose last hand-offs carry few conflicts pays it for few: a cost per conflict
 * alone says too little time is left near the end.
 */

/** The run's work between one hand-off and the next. */
export interface Stretch {
  /** Work on conflicts, check runs excluded, in milliseconds. */
  workMs: number;
  conflicts: number;
  /** Autofill rounds (grid updates) in the resolving nodes. */
  rounds: number;
  /** Cells the rounds merged. */
  cells: number;
}

export interface RunCost {
  perHandoffMs: number;
  perRoundMs: number;
  perCellMs: number;
  perConflictMs: number;
  /** Autofill rounds per hand-off: a layer of conflicts takes about one hand-off, so a layer costs as many. */
  roundsPerHandoff: number;
}

/** Stretches a fit needs before it says more than a cost per conflict. */
const MIN_STRETCHES = 3;

const dot = (a: readonly number[], b: readonly number[]): number => a.reduce((s, v, i) => s + v * (b[i] as number), 0);

/** The solution of the square system `a·x = b` (Gaussian elimination), or null when it is singular. */
function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const scale = Math.max(...m.map((row) => Math.abs(row[c]!)));
    if (Math.abs(m[c]![c]!) <= 1e-9 * Math.max(1, scale)) return null;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * Non-negative least squares over a few factors: of the exact least-squares fits over each subset
 * of the factors, the one with the least squared residual whose costs are all non-negative (the
 * factors left out cost 0). Exhaustive, so exact: with four factors it is fifteen small fits.
 */
function nonNegativeFit(columns: readonly number[][], w: readonly number[]): number[] {
  let best = { coef: columns.map(() => 0), residual: dot(w, w) };
  for (let mask = 1; mask < 1 << columns.length; mask++) {
    const used = columns.map((_, j) => j).filter((j) => mask & (1 << j));
    const x = solve(
      used.map((a) => used.map((b) => dot(columns[a]!, columns[b]!))),
      used.map((a) => dot(columns[a]!, w)),
    );
    if (x === null || x.some((v) => v < 0)) continue;
    const coef = columns.map(() => 0);
    used.forEach((j, k) => (coef[j] = x[k]!));
    const residual = w.reduce(
      (s, v, i) =>
        s +
        (v -
          dot(
            coef,
            columns.map((c) => c[i]!),
          )) **
          2,
      0,
    );
    if (residual < best.residual) best = { coef, residual };
  }
  return best.coef;
}

/**
 * The cost of a continue's fixed work, of a round, of a cell and of a conflict, by non-negative least squares
 * over the stretches; null with too few stretches to tell.
 */
export function fitRunCost(stretches: readonly Stretch[]): RunCost | null {
  if (stretches.length < MIN_STRETCHES) return null;
  const [perHandoffMs, perRoundMs, perCellMs, perConflictMs] = nonNegativeFit(
    [stretches.map(() => 1), ...(['rounds', 'cells', 'conflicts'] as const).map((k) => stretches.map((s) => s[k]))],
    stretches.map((s) => s.workMs),
  ) as [number, number, number, number];
  const roundsPerHandoff = stretches.reduce((a, s) => a + s.rounds, 0) / stretches.length;
  return { perHandoffMs, perRoundMs, perCellMs, perConflictMs, roundsPerHandoff };
}
