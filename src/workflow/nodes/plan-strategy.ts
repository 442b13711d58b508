import { chooseStrategy } from '../../agents/index.js';
import type { RunState } from '../../store/run-state.js';
import { PRIOR_FAILURE_RATE, predictStrategies, type StrategyPrediction } from '../../agents/planner-predict.js';
import { tipMerge, type ConflictEstimate } from '../../imerge/conflict-estimate.js';
import { checkCostsOf } from '../check-costs.js';
import { openAttempt } from './attempt.js';
import { withFlow, type Ctx, type Result } from './common.js';

/** PlanStrategy: the configured strategy, or the planner's choice (model, or the offline policy). */
export async function planStrategy(state: RunState, ctx: Ctx): Promise<Result> {
  const now = ctx.clock.now().toISOString();
  const tips = await ctx.once('tip-merge', () =>
    tipMerge(ctx.git, state.target.originalOid, state.source.oid, {
      firstParent: ctx.config.imerge.first_parent,
      signal: ctx.signal,
    }),
  );
  state = withFlow(state, { tipConflicts: tips.groups });
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
    state: withFlow({ ...state, strategy: s, currentAttempt: attempt, attempts }, { batch: [] }),
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
      decidedBy: 'user',
      reasoning: `merge.strategy is set to ${merge.strategy}`,
      decidedAt: now,
    };
  const size = state.grid?.size ?? { i1: 0, i2: 0 };
  const answer = await ctx.once('strategy', async () =>
    chooseStrategy(
      {
        source_ref: state.source.ref,
        target_branch: state.target.branch,
        num_source_commits: size.i2,
        num_target_commits: size.i1,
        estimated_conflicts: expected,
        conflicts_lower_bound: lowerBound,
        available_strategies: merge.strategies_available,
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
 * Each strategy's predicted check time, from the check times measured on the tips and the
 * conflicts the tips' merge predicts; null when no check has a measured time.
 */
function predict(
  ctx: Ctx,
  state: RunState,
  conflicts: number,
): { all: StrategyPrediction[]; of: (s: { kind: string; batchSize: number | null }) => Prediction } | null {
  const { checkMs, fullMs } = checkCostsOf(ctx.config, state);
  if (checkMs + fullMs === 0) return null;
  const merge = ctx.config.merge;
  const sizes = [2, 3, 5, 8, merge.default_batch_size];
  const input = {
    conflicts,
    checkMs,
    fullMs,
    fullEvery: ctx.config.check.full_every,
    failureRate: PRIOR_FAILURE_RATE,
    batchSizes: sizes,
  };
  const all = predictStrategies({ ...input, available: merge.strategies_available });
  return {
    all,
    of: (s) => {
      const own = predictStrategies({
        ...input,
        batchSizes: [s.batchSize ?? merge.default_batch_size],
        available: [s.kind as StrategyPrediction['strategy']],
      })[0];
      return { conflicts, checkMs, fullMs, ms: own?.ms ?? 0, alternatives: all };
    },
  };
}

type Prediction = NonNullable<NonNullable<RunState['strategy']>['prediction']>;
