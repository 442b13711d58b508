import type { RunState } from '../../store/run-state.js';

type Attempt = RunState['attempts'][number];

/** A new attempt's record: its number, the strategy it runs under (per conflict when none is chosen), nothing done yet. */
export function openAttempt(
  number: number,
  strategy: { kind: Attempt['strategy']; batchSize: number | null } | null,
  now: string,
): Attempt {
  return {
    number,
    strategy: strategy?.kind ?? 'per_conflict',
    batchSize: strategy?.batchSize ?? null,
    resolutions: [],
    checks: [],
    failureSummary: null,
    recovery: null,
    startedAt: now,
    finishedAt: null,
  };
}
