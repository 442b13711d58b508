import type { RunState } from '../../store/run-state.js';
import { runChecksOn, type Ctx, type Result } from './common.js';

/**
 * Initialize: open the grid (start, or load on resume), record its size, and run
 * the checks on both tips first — a fork that does not pass its own checks is
 * reported, not "fixed" by resolutions.
 */
export async function initialize(state: RunState, ctx: Ctx): Promise<Result> {
  const engine = await ctx.engine();
  const size = engine.size();
  let next: RunState = { ...state, grid: { size, position: null, blockers: [] } };
  ctx.journal.append({ type: 'grid_updated', grid: next.grid! });

  const baselines: Array<[string, 'baseline-ours' | 'baseline-theirs', string]> = [
    [state.target.originalOid, 'baseline-ours', `the fork (${state.target.branch})`],
    [state.source.oid, 'baseline-theirs', `upstream (${state.source.ref})`],
  ];
  for (const [commit, target, label] of baselines) {
    const run = await ctx.once(`baseline:${target}`, async () => runChecksOn(ctx, next, commit, null, target));
    next = { ...next, checks: [...next.checks, ...run.records] };
    if (!run.passed) {
      const failed = run.records[run.records.length - 1];
      return {
        halt: 'failed',
        next: 'end',
        reason:
          `${label} fails check '${failed?.name}' before anything is merged (log: ${failed?.logFile}). ` +
          'splintercat does not try to fix a tree that fails on its own: fix the branch, or change check.workflow, then run `splintercat merge` again.',
        state: next,
      };
    }
  }
  return { next: 'plan_strategy', state: next };
}
