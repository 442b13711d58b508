import { cellId, joinCells, maximalCells, parseCellId, type Cell } from '../../imerge/cell.js';
import type { RunState } from '../../store/run-state.js';
import { flow, lastCheck, recordChecks, runChecksOn, withFlow, type Ctx, type Result } from './common.js';

/**
 * Check: validate the batch just resolved on a grid cell whose tree embodies it —
 * the final cell once the grid is complete, else the join of the batch when it is
 * filled, else each maximal resolved cell. Only failures absent from the baselines
 * (both tips, and where needed the cell's own fork and upstream commits) are blamed
 * on the resolutions; a failure that is not blamed lets the run go on, but a batch
 * whose check could not see everything (a runner stopping at an inherited failure,
 * or "cannot tell") is not counted as validated: it stays under suspicion at the
 * final check.
 */
export async function check(state: RunState, ctx: Ctx): Promise<Result> {
  const engine = await ctx.engine();
  const data = flow(state);
  const batch = (data.batch ?? []).map(parseCellId);
  const size = engine.size();
  const complete = (state.grid?.blockers.length ?? 0) === 0;
  const final: Cell = { i1: size.i1, i2: size.i2 };
  let targets: Cell[];
  if (complete && (await engine.cellCommit(final))) targets = [final];
  else {
    const join = joinCells(batch);
    targets = batch.length > 0 && (await engine.cellCommit(join)) ? [join] : maximalCells(batch);
  }

  let next = state;
  let seenAll = true;
  for (const target of targets) {
    const commit = await engine.cellCommit(target);
    if (!commit) continue;
    const run = await runChecksOn(ctx, next, commit, target, 'cell');
    next = recordChecks(next, run.records, run.baselines);
    if (!run.passed && run.failed) {
      return {
        next: 'summarize_failure',
        state: withFlow(next, { lastCheck: lastCheck(target, run.failed, run.blame) }),
      };
    }
    if (!run.validated) seenAll = false;
  }
  const validated = seenAll ? [...new Set([...(data.validated ?? []), ...(data.batch ?? [])])] : (data.validated ?? []);
  const finalValidated = targets.length === 1 && cellId(targets[0] as Cell) === cellId(final);
  // Conflicts that passed no longer need their failure context; those still waiting keep it.
  const retryContext = Object.fromEntries(
    Object.entries(data.retryContext ?? {}).filter(([id]) => !validated.includes(id)),
  );
  next = withFlow(next, { batch: [], validated, finalValidated, retryContext });
  return { next: complete ? 'finalize' : 'resolve_conflicts', state: next };
}
