import type { RunState } from '../../store/run-state.js';
import type { Ctx } from './common.js';

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

/** The attempt under way, closed with the recovery decided for it and journalled (`doctor --rebuild` reads it back). */
export function closeAttempt(ctx: Ctx, s: RunState, decision: RunState['pendingRecovery'], now: string): RunState {
  const attempts = s.attempts.map((a) =>
    a.number === s.currentAttempt ? { ...a, recovery: decision, finishedAt: now } : a,
  );
  const closed = attempts.find((a) => a.number === s.currentAttempt);
  if (closed) ctx.journal.append({ type: 'attempt_finished', attempt: closed });
  return { ...s, attempts };
}
