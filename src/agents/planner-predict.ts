import type { StrategyName } from '../config/goals.js';

/** What a strategy's wall time is predicted from: the conflicts to come and what checks cost. */
export interface PredictionInput {
  /** Conflicts expected (from the tips' merge, then the frontier). */
  conflicts: number;
  /** Milliseconds of the check run after a resolution (the fast checks, or the full ones). */
  checkMs: number;
  /** Milliseconds of the full checks (the final validation, every `fullEvery` resolutions). */
  fullMs: number;
  /** Resolutions between full checks (`check.full_every`); 0 = only the final validation. */
  fullEvery: number;
  /** The share of resolutions a check finds wrong (each costs a retry, and in a batch a bisection). */
  failureRate: number;
  /** Batch sizes to consider for the batch strategy. */
  batchSizes: number[];
  available: StrategyName[];
}

export interface StrategyPrediction {
  strategy: StrategyName;
  batchSize: number | null;
  /** Predicted milliseconds of checking to the end of the merge. */
  ms: number;
  /** Check runs predicted (bisection probes and retries included). */
  checks: number;
}

/** The share of resolutions assumed wrong before the run has measured its own. */
export const PRIOR_FAILURE_RATE = 0.15;

/**
 * The check time of resolving `conflicts` in batches of `size`: one check per batch; each wrong
 * resolution (a share p of them) costs a bisection of ceil(log2 size) probes to find it, the
 * judgement of each failed check (the check run again on the cell's own fork and upstream commits:
 * the failed batch, and about half the probes), and a check of its redone resolution; full checks
 * every `fullEvery` resolutions; one final validation.
 */
function batchCost(input: PredictionInput, size: number): { ms: number; checks: number } {
  const c = input.conflicts;
  if (c <= 0) return { ms: input.fullMs, checks: 1 };
  const batches = Math.ceil(c / size);
  const probes = Math.ceil(Math.log2(Math.min(size, c)));
  const perWrong = probes + 2 * (1 + probes / 2) + 1;
  const recovery = c * input.failureRate * perWrong;
  const fulls = input.fullEvery > 0 ? Math.floor(c / input.fullEvery) : 0;
  // The last batch is checked on the final cell, as the final validation (full).
  const checks = batches - 1 + recovery;
  return { ms: checks * input.checkMs + (fulls + 1) * input.fullMs, checks: Math.round(checks + fulls + 1) };
}

/** Each available strategy's predicted check time (the batch strategy at its best size), cheapest first. */
export function predictStrategies(input: PredictionInput): StrategyPrediction[] {
  const out: StrategyPrediction[] = [];
  if (input.available.includes('per_conflict'))
    out.push({ strategy: 'per_conflict', batchSize: null, ...batchCost(input, 1) });
  if (input.available.includes('batch')) {
    const sizes = [...new Set(input.batchSizes.filter((s) => s > 1))];
    const best = sizes
      .map((size) => ({ strategy: 'batch' as const, batchSize: size, ...batchCost(input, size) }))
      .sort((a, b) => a.ms - b.ms)[0];
    if (best) out.push(best);
  }
  if (input.available.includes('optimistic'))
    out.push({ strategy: 'optimistic', batchSize: null, ...batchCost(input, Math.max(1, input.conflicts)) });
  // Ties go to the safer strategy (the order above).
  return out
    .map((p, k) => ({ p, k }))
    .sort((a, b) => a.p.ms - b.p.ms || a.k - b.k)
    .map(({ p }) => p);
}
