import { cellId, joinCells, maximalCells, parseCellId, type Cell } from '../../imerge/cell.js';
import type { RunState } from '../../store/run-state.js';
import { flow, lastCheck, recordChecks, runChecksOn, withFlow, type Ctx, type Result } from './common.js';

/**
 * Check: validate the batch just resolved on a grid cell whose tree embodies it —
 * the final cell once the grid is complete, else the join of the batch when it is
 * filled, else each maximal resolved cell. A failure that the cell's own fork or
 * upstream commit shows by itself is not blamed on a resolution.
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
  for (const target of targets) {
    const commit = await engine.cellCommit(target);
    if (!commit) continue;
    const run = await runChecksOn(ctx, next, commit, target, 'cell');
    next = recordChecks(next, run.records);
    if (!run.passed && run.failed) {
      if (await failsOnItsOwn(ctx, next, target, run.failed.name)) {
        ctx.log.warn({ cell: cellId(target), check: run.failed.name }, 'the failure is present in an original commit of this cell: not blamed on a resolution');
        continue;
      }
      return { next: 'summarize_failure', state: withFlow(next, { lastCheck: lastCheck(target, run.failed) }) };
    }
  }
  const validated = [...new Set([...(data.validated ?? []), ...(data.batch ?? [])])];
  const finalValidated = targets.length === 1 && cellId(targets[0] as Cell) === cellId(final);
  // Conflicts that passed no longer need their failure context; those still waiting keep it.
  const retryContext = Object.fromEntries(Object.entries(data.retryContext ?? {}).filter(([id]) => !validated.includes(id)));
  next = withFlow(next, { batch: [], validated, finalValidated, retryContext });
  return { next: complete ? 'finalize' : 'resolve_conflicts', state: next };
}

/** Does the fork commit or the upstream commit of this cell fail the same check alone? */
async function failsOnItsOwn(ctx: Ctx, state: RunState, cell: Cell, name: string): Promise<boolean> {
  const engine = await ctx.engine();
  for (const edge of [{ i1: cell.i1, i2: 0 }, { i1: 0, i2: cell.i2 }]) {
    const commit = await engine.cellCommit(edge);
    if (!commit) continue;
    const run = await runChecksOn(ctx, state, commit, edge, 'cell', [name]);
    if (!run.passed) return true;
  }
  return false;
}
