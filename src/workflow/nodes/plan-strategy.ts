import { chooseStrategy } from '../../agents/index.js';
import { estimateConflicts } from '../../imerge/conflict-estimate.js';
import type { RunState } from '../../store/run-state.js';
import { withFlow, type Ctx, type Result } from './common.js';

/** PlanStrategy: the configured strategy, or the planner's choice (model, or the offline policy). */
export async function planStrategy(state: RunState, ctx: Ctx): Promise<Result> {
  const merge = ctx.config.merge;
  const now = ctx.clock.now().toISOString();
  let decision: { strategy: RunState['strategy'] & object };
  if (merge.strategy !== 'auto') {
    decision = {
      strategy: {
        kind: merge.strategy,
        batchSize: merge.strategy === 'batch' ? merge.default_batch_size : null,
        decidedBy: 'user',
        reasoning: `merge.strategy is set to ${merge.strategy}`,
        decidedAt: now,
      },
    };
  } else {
    const size = state.grid?.size ?? { i1: 0, i2: 0 };
    const answer = await ctx.once('strategy', async () =>
      chooseStrategy(
        {
          source_ref: state.source.ref,
          target_branch: state.target.branch,
          num_source_commits: size.i2,
          num_target_commits: size.i1,
          estimated_conflicts: null,
          conflicts_lower_bound: await estimateConflicts(
            ctx.git,
            state.target.originalOid,
            state.source.oid,
            ctx.signal,
          ).catch(() => null),
          available_strategies: merge.strategies_available,
          default_batch_size: merge.default_batch_size,
        },
        { gateway: ctx.gateway, log: ctx.log },
      ),
    );
    decision = {
      strategy: {
        kind: answer.strategy,
        batchSize: answer.strategy === 'batch' ? (answer.batch_size ?? merge.default_batch_size) : null,
        decidedBy: answer.source === 'model' ? 'planner' : 'fallback',
        reasoning: answer.reasoning,
        decidedAt: now,
      },
    };
  }
  const s = decision.strategy;
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
    : [
        ...state.attempts,
        {
          number: attempt,
          strategy: s.kind,
          batchSize: s.batchSize,
          resolutions: [],
          checks: [],
          failureSummary: null,
          recovery: null,
          startedAt: now,
          finishedAt: null,
        },
      ];
  return {
    next: 'resolve_conflicts',
    state: withFlow({ ...state, strategy: s, currentAttempt: attempt, attempts }, { batch: [] }),
  };
}
