/**
 * What the run's own work costs, fitted from the stretches between hand-offs: each autofill round
 * (the engine finding the next layer of conflicts) and each conflict resolved. A round's cost is
 * mostly fixed, so a run whose last hand-offs carry few conflicts pays it for few: a cost per
 * conflict alone says too little time is left near the end.
 */

/** The run's work between one hand-off and the next. */
export interface Stretch {
  /** Work on conflicts, check runs excluded, in milliseconds. */
  workMs: number;
  conflicts: number;
  /** Autofill rounds (grid updates) in the resolving nodes. */
  rounds: number;
}

export interface RunCost {
  perRoundMs: number;
  perConflictMs: number;
  /** Autofill rounds per hand-off: a layer of conflicts takes about one hand-off, so a layer costs as many. */
  roundsPerHandoff: number;
}

/** Stretches a fit needs before it says more than a cost per conflict. */
const MIN_STRETCHES = 3;

/** The least-squares `w ≈ k·x` through the origin, with its absolute residual. */
function oneFactor(x: readonly number[], w: readonly number[]): { k: number; residual: number } {
  const xx = x.reduce((s, v) => s + v * v, 0);
  const k = xx > 0 ? x.reduce((s, v, i) => s + v * (w[i] as number), 0) / xx : 0;
  return { k, residual: w.reduce((s, v, i) => s + Math.abs(v - k * (x[i] as number)), 0) };
}

/**
 * The cost of a round and of a conflict, non-negative least squares over the stretches (the two
 * factors' normal equations, or the better single factor when one of them would come out
 * negative); null with too few stretches to tell.
 */
export function fitRunCost(stretches: readonly Stretch[]): RunCost | null {
  if (stretches.length < MIN_STRETCHES) return null;
  const g = stretches.map((s) => s.rounds);
  const r = stretches.map((s) => s.conflicts);
  const w = stretches.map((s) => s.workMs);
  const dot = (a: readonly number[], b: readonly number[]): number =>
    a.reduce((s, v, i) => s + v * (b[i] as number), 0);
  const [gg, rr, gr, gw, rw] = [dot(g, g), dot(r, r), dot(g, r), dot(g, w), dot(r, w)];
  const det = gg * rr - gr * gr;
  let perRoundMs = det > 0 ? (gw * rr - rw * gr) / det : -1;
  let perConflictMs = det > 0 ? (rw * gg - gw * gr) / det : -1;
  if (perRoundMs < 0 || perConflictMs < 0) {
    const byRound = oneFactor(g, w);
    const byConflict = oneFactor(r, w);
    [perRoundMs, perConflictMs] = byRound.residual < byConflict.residual ? [byRound.k, 0] : [0, byConflict.k];
  }
  const roundsPerHandoff = g.reduce((a, b) => a + b, 0) / stretches.length;
  return { perRoundMs, perConflictMs, roundsPerHandoff };
}
