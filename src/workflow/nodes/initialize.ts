import type { RunState } from '../../store/run-state.js';
import { recordChecks, workflowChecks, type Ctx, type Result } from './common.js';
import { runBaselines } from './check-blame.js';
import { policyWarnings } from '../../resolve/policy/policy-warnings.js';
import { CACHE_REF, importCacheRefs } from '../../resolve/cache/cache-ref.js';
import { firstTests } from '../../checks/test-list.js';

/**
 * Initialize: open the grid (start, or load on resume), record its size, and run
 * the checks on both tips first. A check that already fails on a tip does not stop
 * the merge: its failing tests (or, when none can be named, its whole outcome) are
 * that side's baseline, and only failures absent from both baselines are blamed on
 * resolutions later.
 */
export async function initialize(state: RunState, ctx: Ctx): Promise<Result> {
  const engine = await ctx.engine();
  const size = engine.size();
  let next: RunState = { ...state, grid: { size, position: null, blockers: [] } };
  ctx.journal.append({ type: 'grid_updated', grid: next.grid! });
  for (const warning of await policyWarnings(ctx.git, ctx.ladder.policy, [state.target.originalOid, state.source.oid]))
    ctx.log.warn({}, warning);
  // Resolutions shared through git (another clone's, a CI runner's) join the local cache first.
  const shared = ctx.ladder.cache ? await importCacheRefs(ctx.git, ctx.ladder.cache) : 0;
  if (shared > 0) ctx.log.decision({ entries: shared }, `[cache] ${shared} resolution(s) taken in from ${CACHE_REF}`);

  // The fast checks' baselines too: a fast check's failure is judged against them, and the planner reads their times.
  const fast = ctx.config.check.fast.filter((n) => n in ctx.config.check.commands);
  const names = [...new Set([...workflowChecks(ctx), ...fast])];
  if (names.length === 0) return { next: 'plan_strategy', state: next };
  const tips = [
    {
      side: 'fork' as const,
      commit: state.target.originalOid,
      key: 'baseline-ours',
      label: `the fork tip (${state.target.branch})`,
    },
    {
      side: 'upstream' as const,
      commit: state.source.oid,
      key: 'baseline-theirs',
      label: `the upstream tip (${state.source.ref})`,
    },
  ];
  const checkTip = (tip: (typeof tips)[number]) =>
    ctx.once(`baseline:${tip.key}`, async () => runBaselines(ctx, next, tip.side, tip.commit, null, names));
  // A runner that runs checks side by side (CI runners) checks both tips at once: the merge waits for both.
  const runs = [];
  if ((ctx.checks.parallel ?? 1) > 1) runs.push(...(await Promise.all(tips.map(checkTip))));
  else for (const tip of tips) runs.push(await checkTip(tip));
  for (const [k, tip] of tips.entries()) {
    const run = runs[k] as Awaited<ReturnType<typeof checkTip>>;
    next = recordChecks(next, run.records, run.baselines);
    for (const b of run.baselines.filter((x) => !x.outcome.passed)) {
      const what =
        b.outcome.failing === null
          ? 'no failing test could be named, so its whole outcome is'
          : `its ${b.outcome.failing.length} failing test(s) (${firstTests(b.outcome.failing)}) are`;
      ctx.log.decision(
        { check: b.check, side: b.side },
        `[baseline] ${b.check} already fails on ${tip.label} (log: ${b.logFile}): ${what} that side's baseline, never blamed on a resolution`,
      );
    }
  }
  return { next: 'plan_strategy', state: next };
}
