import { UsageError } from '../errors/index.js';
import type { AcceptedFailure, RunState } from '../store/run-state.js';

/** The command a failure hand-off offers besides amending. */
/** The command that accepts a hand-off's failure, on the continue command that resumes this run. */
export function acceptCommand(resume: string): string {
  return `${resume} --accept-failure`;
}

/**
 * `continue --accept-failure`: the person says the failure their hand-off shows is expected at
 * this step of the merge (the fork or upstream fixes it later). Its failing tests join the run's
 * accepted failures, compared like a baseline's from now on, so the resolution in the worktree is
 * taken as it is and checked again without that failure blamed. Refused when no hand-off shows a
 * failed check.
 */
export function acceptPendingFailure(state: RunState, now: Date): { state: RunState; accepted: AcceptedFailure } {
  const failing = (state.handoff?.conflicts ?? []).filter((c) => c.failure !== null);
  const check = failing[0]?.failure?.check;
  const record =
    check === undefined
      ? undefined
      : state.checks.filter((r) => r.name === check && !r.success && r.outcome !== undefined).at(-1);
  if (failing.length === 0 || record?.outcome === undefined) {
    throw new UsageError('nothing_to_accept', {
      what: `There is no failed check to accept in merge '${state.name}'`,
      why: state.handoff
        ? 'the pending hand-off asks for conflicts to be settled, not for a failure to be judged'
        : 'no hand-off is pending',
      fix: ['See what the run waits for: splintercat status', 'Settle what it asks, then: splintercat continue'],
    });
  }
  const accepted: AcceptedFailure = {
    check: record.name,
    conflicts: failing.map((c) => c.conflict),
    outcome: record.outcome,
    logFile: record.logFile,
    at: now.toISOString(),
  };
  const handoff = state.handoff
    ? { ...state.handoff, conflicts: state.handoff.conflicts.map(({ blamedTree: _taken, ...c }) => c) }
    : null;
  return { state: { ...state, handoff, acceptedFailures: [...state.acceptedFailures, accepted] }, accepted };
}
