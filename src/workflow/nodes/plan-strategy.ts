import { chooseStrategy } from '../../agents/index.js';
import { strategyPolicy } from '../../agents/planner-policy.js';
import type { RunState } from '../../store/run-state.js';
import { PRIOR_FAILURE_RATE, predictStrategies, type StrategyPrediction } from '../../agents/planner-predict.js';
import { tipMerge, type ConflictEstimate } from '../../imerge/conflict-estimate.js';
import { expectedConflicts, gridSampleOf } from '../estimate.js';
import { checkCostsOf } from '../check-costs.js';
import { openAttempt } from './attempt.js';
import type { Ctx, Result } from './common.js';
import { withCheckProgress } from '../../store/flow-checks.js';
import { recoveryMemory, withRecoveryMemory } from '../../store/flow-recovery.js';
import { withTipFacts } from '../../store/flow-tips.js';

/** PlanStrategy: the configured strategy, or the planner's choice (model, or the offline policy). */
export async function planStrategy(state: RunState, ctx: Ctx): Promise<Result> {
  const now = ctx.clock.now().toISOString();
  const tips = await ctx.once('tip-merge', () =>
    tipMerge(ctx.git, state.fork.originalOid, state.upstream.oid, {
      firstParent: ctx.config.imerge.first_parent,
      signal: ctx.signal,
    }),
  );
  state = withTipFacts(state, { tipConflicts: tips.groups });
  const predictions = predict(ctx, state, tips.groups.length);
  const chosen = await decide(
    state,
    ctx,
    { expected: tips.groups.length, lowerBound: tips.lowerBound },
    predictions?.all ?? null,
  );
  const s: RunState['strategy'] & object = { ...chosen, prediction: predictions?.of(chosen) ?? null };
  ctx.journal.append({
    type: 'decision',
    kind: 'strategy',
    by: s.decidedBy,
    decision: s.kind,
    reasoning: s.reasoning,
    batchSize: s.batchSize,
  });
  ctx.log.decision(
    { strategy: s.kind, batchSize: s.batchSize },
    `[planner] Strategy selected: ${s.kind}${s.batchSize ? ` (size=${s.batchSize})` : ''} — ${s.reasoning}`,
  );
  const attempt = state.currentAttempt === 0 ? 1 : state.currentAttempt;
  const attempts = state.attempts.some((a) => a.number === attempt)
    ? state.attempts
    : [...state.attempts, openAttempt(attempt, s, now)];
  return {
    next: 'resolve_conflicts',
    state: withCheckProgress({ ...state, strategy: s, currentAttempt: attempt, attempts }, { batch: [] }),
  };
}

/** The configured strategy, or the planner's choice (model, or the offline policy) given the conflicts expected and the predictions. */
async function decide(
  state: RunState,
  ctx: Ctx,
  { expected, lowerBound }: { expected: number; lowerBound: ConflictEstimate | null },
  predictions: StrategyPrediction[] | null,
): Promise<NonNullable<RunState['strategy']>> {
  const merge = ctx.config.merge;
  const now = ctx.clock.now().toISOString();
  if (merge.strategy !== 'auto')
    return {
      kind: merge.strategy,
      batchSize: merge.strategy === 'batch' ? merge.default_batch_size : null,
      decidedBy: 'person',
      reasoning: `merge.strategy is set to ${merge.strategy}`,
      decidedAt: now,
    };
  const size = state.grid?.size ?? { i1: 0, i2: 0 };
  const answer = await ctx.once('strategy', async () =>
    chooseStrategy(
      {
        source_ref: state.upstream.ref,
        target_branch: state.fork.branch,
        num_source_commits: size.i2,
        num_target_commits: size.i1,
        estimated_conflicts: expected,
        conflicts_basis: 'tips',
        conflicts_lower_bound: lowerBound,
        available_strategies: merge.available_strategies,
        default_batch_size: merge.default_batch_size,
        ...(predictions ? { predictions } : {}),
      },
      { gateway: ctx.gateway, log: ctx.log },
    ),
  );
  return {
    kind: answer.strategy,
    batchSize: answer.strategy === 'batch' ? (answer.batch_size ?? merge.default_batch_size) : null,
    decidedBy: answer.source === 'model' ? 'planner' : 'fallback',
    reasoning: answer.reasoning,
    decidedAt: now,
  };
}

/**
 * Each strategy's predicted check time for `conflicts` to come, from the check times measured so
 * far (checks-costs.ts) and the share of resolutions found wrong; null when no check has a measured time.
 */
function predict(
  ctx: Ctx,
  state: RunState,
  conflicts: number,
  failureRate = PRIOR_FAILURE_RATE,
): { all: StrategyPrediction[]; of: (s: { kind: string; batchSize: number | null }) => Prediction } | null {
  const { checkMs, fullMs } = checkCostsOf(ctx.config, state);
  if (checkMs + fullMs === 0) return null;
  const merge = ctx.config.merge;
  const sizes = [2, 3, 5, 8, merge.default_batch_size];
  const input = { conflicts, checkMs, fullMs, fullEvery: ctx.config.check.full_every, failureRate, batchSizes: sizes };
  const all = predictStrategies({ ...input, available: merge.available_strategies });
  return {
    all,
    of: (s) => {
      const own = predictStrategies({
        ...input,
        batchSizes: [s.batchSize ?? merge.default_batch_size],
        available: [s.kind as StrategyPrediction['strategy']],
      })[0];
      const strategy = s.batchSize ? `${s.kind}(${s.batchSize})` : s.kind;
      return { conflicts, strategy, checkMs, fullMs, ms: own?.ms ?? 0, alternatives: all };
    },
  };
}

type Prediction = NonNullable<NonNullable<RunState['strategy']>['prediction']>;

/** Cell checks measured before the planner predicts again: this many, then each time their number doubles. */
const REPLAN_FIRST = 3;

/** Resolutions the prior failure rate counts as, against those the run has checked itself. */
const PRIOR_WEIGHT = 10;

/**
 * Predict again from what the run measured: the checks' times on cells (a tip's first check is a
 * clean build, far dearer than the checks after a resolution), the share of resolutions found
 * wrong, the conflicts left. Called after a check passed, once REPLAN_FIRST cell checks are
 * measured and then each time their number has doubled. The prediction becomes the time so far
 * plus the time to come; a strategy the offline policy chose is switched when the new prediction
 * chooses another (a user's or a model's choice stays, with its prediction made again).
 */
export function replan(state: RunState, ctx: Ctx): RunState {
  const current = state.strategy;
  if (!current) return state;
  const measured = state.checks.filter((c) => c.target === 'cell').length;
  const last = recoveryMemory(state).plannedAtChecks;
  if (measured < Math.max(REPLAN_FIRST, 2 * last)) return state;
  const resolved = state.conflicts.filter((c) => c.status === 'resolved');
  const expected = expectedConflicts(gridSampleOf(state)).expected;
  const left = Math.max(0, expected - resolved.length);
  const wrong = resolved.reduce((n, c) => n + Math.max(0, c.attempts - 1), 0);
  const rate = (wrong + PRIOR_FAILURE_RATE * PRIOR_WEIGHT) / (resolved.length + PRIOR_WEIGHT);
  const predictions = predict(ctx, state, left, rate);
  if (!predictions) return state;
  const spent = state.checks.reduce((t, c) => t + c.durationMs, 0);
  const total = (p: StrategyPrediction): StrategyPrediction => ({ ...p, ms: p.ms + spent });
  const now = ctx.clock.now().toISOString();
  const size = state.grid?.size ?? { i1: 0, i2: 0 };
  const choice =
    current.decidedBy === 'fallback'
      ? strategyPolicy({
          source_ref: state.upstream.ref,
          target_branch: state.fork.branch,
          num_source_commits: size.i2,
          num_target_commits: size.i1,
          estimated_conflicts: left,
          conflicts_basis: 'grid',
          available_strategies: ctx.config.merge.available_strategies,
          default_batch_size: ctx.config.merge.default_batch_size,
          predictions: predictions.all,
        })
      : null;
  const batchSize = choice?.strategy === 'batch' ? (choice.batch_size ?? ctx.config.merge.default_batch_size) : null;
  const switched = choice !== null && (choice.strategy !== current.kind || batchSize !== current.batchSize);
  const kind = switched ? choice.strategy : current.kind;
  const own = predictions.of({ kind, batchSize: switched ? batchSize : current.batchSize });
  const measuredText = `measured on ${measured} cell check(s), ${wrong} of ${resolved.length} resolution(s) redone, ${left} conflict(s) left`;
  let strategy: NonNullable<RunState['strategy']> = {
    ...current,
    prediction: {
      ...own,
      conflicts: resolved.length + left,
      ms: own.ms + spent,
      alternatives: predictions.all.map(total),
    },
  };
  if (switched) {
    // The numbers behind the switch: the checks to the end predicted for the old strategy and for the new one.
    const minutes = (s: { kind: string; batchSize: number | null }): string => {
      const ms = predictions.of(s).ms;
      const time = ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
      return `${time} for ${s.batchSize ? `${s.kind}(${s.batchSize})` : s.kind}`;
    };
    const reasoning = `${measuredText}; checks to the end predicted ${minutes({ kind, batchSize })} against ${minutes(current)}: ${choice.reasoning}`;
    strategy = { ...strategy, kind, batchSize, reasoning, decidedAt: now };
    ctx.journal.append({ type: 'decision', kind: 'strategy', by: 'fallback', decision: kind, reasoning, batchSize });
    ctx.log.decision(
      { strategy: kind, batchSize },
      `[planner] Strategy changed to ${kind}${batchSize ? ` (size=${batchSize})` : ''} — ${reasoning}`,
    );
  } else {
    ctx.log.info(
      { strategy: kind, predictedMs: strategy.prediction?.ms },
      `[planner] predicted again (${measuredText}): ${kind} stays`,
    );
  }
  const attempts = state.attempts.map((a) =>
    a.number === state.currentAttempt && a.finishedAt === null
      ? { ...a, strategy: kind, batchSize: strategy.batchSize }
      : a,
  );
  return withRecoveryMemory({ ...state, strategy, attempts }, { plannedAtChecks: measured });
}
