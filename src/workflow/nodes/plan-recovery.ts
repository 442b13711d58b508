import { planRecovery } from '../../agents/index.js';
import type { FailureSummary } from '../../checks/types.js';
import { cellId } from '../../imerge/cell.js';
import type { RecoveryDecision, RunState } from '../../store/run-state.js';
import { moreConservative, type Ctx, type Result } from './common.js';
import { checkProgress } from '../../store/flow-checks.js';
import { recoveryMemory } from '../../store/flow-recovery.js';
import { handedBack, settledByPolicy } from './handed-back.js';

type FailureContext = Parameters<typeof planRecovery>[0];

/** What the planner is told: the strategy, the failure, the resolutions under test and the earlier attempts. */
function failureContext(state: RunState, ctx: Ctx, summary: FailureSummary, used: number): FailureContext {
  const { batch } = checkProgress(state);
  return {
    current_strategy: state.strategy?.kind ?? 'per_conflict',
    conflicts_resolved: batch.length,
    failure_summary: summary,
    resolutions: state.conflicts
      .filter((c) => batch.includes(c.id))
      .map((c) => ({
        i1: c.cell.i1,
        i2: c.cell.i2,
        files: c.files.map((f) => f.path),
        choice: c.files.flatMap((f) => f.hunks.map((h) => h.by ?? '')).join(','),
      })),
    previous_attempts: state.attempts
      .filter((a) => a.number < state.currentAttempt && a.failureSummary)
      .map((a) => ({
        strategy: a.strategy,
        recovery: a.recovery?.decision ?? null,
        error_type: a.failureSummary!.error_type,
        location: a.failureSummary!.location,
        root_cause: a.failureSummary!.root_cause,
      })),
    max_retries: ctx.config.merge.max_recoveries,
    // Retries used so far: the first attempt is not a retry.
    attempts_so_far: used - 1,
    available_strategies: ctx.config.merge.available_strategies,
  };
}

/** The planner's answer (asked once per attempt, replayed after a kill) as the run's decision. */
async function plannerDecision(
  state: RunState,
  ctx: Ctx,
  summary: FailureSummary,
  used: number,
): Promise<RecoveryDecision> {
  const strategy = state.strategy?.kind ?? 'per_conflict';
  const answer = await ctx.once(`recovery:${state.currentAttempt}`, () =>
    planRecovery(failureContext(state, ctx, summary, used), { gateway: ctx.gateway, log: ctx.log }),
  );
  return {
    decision: answer.decision,
    reasoning: answer.reasoning,
    decidedBy: answer.source === 'model' ? 'planner' : 'fallback',
    conflicts: (answer.conflicts_to_retry ?? []).map(([i, j]) => cellId({ i1: i, i2: j })),
    newStrategy: answer.decision === 'switch-strategy' ? (answer.new_strategy ?? moreConservative[strategy]) : null,
    batchSize: null,
  };
}

/** PlanRecovery: the planner (model or offline policy) decides; the runner enforces `merge.max_recoveries`. */
export async function planRecoveryNode(state: RunState, ctx: Ctx): Promise<Result> {
  const attempt = state.attempts.find((a) => a.number === state.currentAttempt);
  const summary: FailureSummary = attempt?.failureSummary ?? {
    error_type: 'test_failure',
    location: null,
    root_cause: 'the check failed',
    excerpt: '',
  };
  // The retry budget counts attempts since `retryBase`: a check that passed, or a person's fix after an abort, starts it again.
  const used = state.currentAttempt - recoveryMemory(state).retryBase;
  const batchIds = checkProgress(state).batch;
  const persons = personsDecision(state.conflicts.filter((c) => batchIds.includes(c.id)));
  const maxRetries = ctx.config.merge.max_recoveries;
  const decision: RecoveryDecision =
    persons ??
    (used >= maxRetries + 1
      ? {
          decision: 'abort',
          reasoning: `merge.max_recoveries (${maxRetries}) recovery attempts in a row used, no check passing between them`,
          decidedBy: 'runner',
          conflicts: [],
          newStrategy: null,
          batchSize: null,
        }
      : await plannerDecision(state, ctx, summary, used));
  ctx.journal.append({
    type: 'decision',
    kind: 'recovery',
    by: decision.decidedBy,
    decision: decision.decision,
    reasoning: decision.reasoning,
    conflicts: decision.conflicts,
  });
  ctx.log.decision(
    { recovery: decision.decision },
    `[planner] Recovery: ${decision.decision}${decision.conflicts.length ? ` (${decision.conflicts.join(', ')})` : ''} — ${decision.reasoning}`,
  );
  return { next: 'execute_recovery', state: { ...state, pendingRecovery: decision } };
}

/**
 * The runner's decision when a person's resolution is under test: several checked together are
 * bisected (only the breaking one goes back); a person's alone goes back to them with the failure.
 * Null when no person's resolution is under test.
 */
function personsDecision(underTest: RunState['conflicts']): RecoveryDecision | null {
  const ids = underTest.map((c) => c.id).join(', ');
  const base = { decidedBy: 'runner' as const, newStrategy: null, batchSize: null };
  if (underTest.length > 1 && underTest.some(handedBack))
    // Handed over together and checked as one batch: find the resolution that breaks it, so only
    // that one goes back (to its person, or down the ladder again), the others stay as they are.
    return {
      ...base,
      decision: 'bisect',
      reasoning: `${underTest.length} resolutions checked together, a person's among them (${ids}): bisect to find the one that breaks the check`,
      conflicts: [],
    };
  if (underTest.length > 0 && underTest.every(handedBack))
    // No rung can redo a person's resolution, nor the fork's policy's (resolved again, it writes the
    // same), and no strategy changes them: the failure goes to a person (exit 3, with the check and
    // its excerpt), as often as they amend it. The retry budget and the "same error again" rule are
    // for automatic attempts.
    return {
      ...base,
      decision: 'retry-specific',
      reasoning: underTest.every(settledByPolicy)
        ? `the check failed on ${underTest.length === 1 ? 'a resolution' : 'resolutions'} the fork's policy (resolve.paths) decided (${ids}), which it would decide the same again: handed to a person with the failure`
        : `the check failed on ${underTest.length === 1 ? 'a resolution' : 'resolutions'} a person made (${ids}): handed back to them with the failure`,
      conflicts: underTest.map((c) => c.id),
    };
  return null;
}
