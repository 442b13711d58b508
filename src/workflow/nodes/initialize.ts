import type { RunState } from '../../store/run-state.js';
import { recordChecks, workflowChecks, type Ctx, type Result } from './common.js';
import { withTipFacts } from '../../store/flow-tips.js';
import { checkTips, checkTipsAlongside } from './tip-checks.js';
import { policyWarnings } from '../../resolve/policy/policy-warnings.js';
import { CACHE_REF, importCacheRefs } from '../../resolve/cache/cache-ref.js';

/**
 * Initialize: open the grid (start, or load on resume), record its size, and check both
 * tips (tip-checks.ts): first, or on CI runners alongside the first conflicts. A check that
 * already fails on a tip does not stop the merge: its failing tests (or, when none can be
 * named, its whole outcome) are that side's baseline, and only failures absent from both
 * baselines are blamed on resolutions later.
 */
export async function initialize(state: RunState, ctx: Ctx): Promise<Result> {
  const engine = await ctx.engine();
  const size = engine.size();
  let next: RunState = { ...state, grid: { size, position: null, blockers: [] } };
  ctx.journal.append({ type: 'grid_updated', grid: next.grid! });
  for (const warning of await policyWarnings(ctx.git, ctx.ladder.policy, [state.fork.originalOid, state.upstream.oid]))
    ctx.log.warn({}, warning);
  // Resolutions shared through git (another clone's, a CI runner's) join the local cache first.
  const skipped = (where: string, why: string): void => ctx.log.warn({ where, why }, `${where}: ${why}; skipped`);
  const shared = ctx.ladder.cache ? await importCacheRefs(ctx.git, ctx.ladder.cache, skipped) : 0;
  if (shared > 0) ctx.log.decision({ entries: shared }, `[cache] ${shared} resolution(s) taken in from ${CACHE_REF}`);

  // The fast checks' baselines too: a fast check's failure is judged against them, and the planner reads their times.
  const fast = ctx.config.check.fast.filter((n) => n in ctx.config.check.commands);
  const names = [...new Set([...workflowChecks(ctx), ...fast])];
  if (names.length === 0) return { next: 'plan_strategy', state: next };
  const alongside = checkTipsAlongside(ctx);
  const run = await checkTips(next, ctx, names, alongside);
  next = recordChecks(next, run.records, run.baselines);
  if (alongside) next = withTipFacts(next, { tipsAlongside: names });
  return { next: 'plan_strategy', state: next };
}
