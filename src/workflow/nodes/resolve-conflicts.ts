import { compareCells, cellId, type Cell } from '../../imerge/cell.js';
import type { GridEngine } from '../ports.js';
import type { RunState } from '../../store/run-state.js';
import { checkProgress, withCheckProgress } from '../../store/flow-checks.js';
import { personChoicesOf, withRecordedChoices } from '../../store/flow-choices.js';
import { handoffToPerson, takePersonsWork } from '../handoff/index.js';
import { recordResolved } from '../conflict-records.js';
import { releaseResolvedWorktrees } from '../release-worktrees.js';
import { approval } from './approval.js';
import type { Ctx, Result } from './common.js';
import { reconcileGrid } from './reconcile-grid.js';
import {
  decideAndApply,
  handOffTogether,
  proposal,
  proposeResolutions,
  type Applied,
  type Proposed,
} from './resolve-round.js';
import { sharedWork, type SharedWork } from './shared-work.js';

/** How many resolutions the strategy lets a batch hold before its check: 1, N, or all. */
function quota(state: RunState): number {
  const s = state.strategy;
  if (!s || s.kind === 'per_conflict') return 1;
  if (s.kind === 'batch') return s.batchSize ?? 10;
  return Number.POSITIVE_INFINITY;
}

/**
 * ResolveConflicts, a pipeline: take back the work already done (resolutions a kill left, other
 * clones' published ones, a person's edits); then, round after round, autofill, choose what to
 * resolve (the strategy's quota, the shared run's claims), the ladder's proposals, the decisions
 * applied (the user approves each under `--interactive`), and what to hand over (a person, or a
 * stop for the model budget). Independent blockers are resolved concurrently (`merge.parallel`),
 * each in its own worktree, and recorded in grid order. Anything the ladder cannot finish stops
 * the run for a person (exit 3).
 */
export async function resolveConflicts(state: RunState, ctx: Ctx): Promise<Result> {
  const engine = await ctx.engine();
  const shared = sharedWork(ctx, engine);
  const start = await takeBack(state, ctx, engine, shared);
  if ('ended' in start) return start.ended;
  let { state: next, batch } = start;
  const limit = quota(state);
  let blockers: Cell[] = [];
  for (;;) {
    if (ctx.signal.aborted) break;
    if (batch.length > 0) next = await shared.adopt(next);
    ({ state: next, blockers } = await autofill(ctx, engine, next));
    const room = limit - batch.length;
    if (blockers.length === 0 || room <= 0) break;
    const turn = await shared.turn(withCheckProgress(next, { batch }), [...blockers].sort(compareCells), batch.length);
    if (turn.kind === 'check') break;
    if (turn.kind === 'again') {
      next = await shared.adopt(next);
      continue;
    }
    if (turn.kind === 'end') return turn.result;
    const take = turn.cells.slice(0, Number.isFinite(room) ? room : turn.cells.length);
    let outcomes = await proposeResolutions(ctx, engine, next, take);
    const rest = turn.cells.slice(take.length);
    if (handOffTogether(ctx, outcomes, rest))
      outcomes = [...outcomes, ...(await proposeResolutions(ctx, engine, next, rest))];
    const proposed = proposal(outcomes);
    const applied = await decideAndApply(ctx, engine, next, proposed, approval(ctx, engine));
    batch = [...batch, ...applied.resolved];
    next = withHandoffChoices(ctx, withCheckProgress(applied.state, { batch }), applied);
    const ended = await handOver(ctx, next, proposed, applied);
    if (ended) return ended;
  }
  next = withCheckProgress(next, { batch });
  if (batch.length > 0) return { next: 'check', state: next };
  return { next: blockers.length === 0 ? 'finalize' : 'resolve_conflicts', state: next };
}

/**
 * The work done before this node ran, taken back first: resolutions a kill left journalled (never
 * asked again), what other clones published, and a person's edits at their hand-off (those not
 * ready are handed back, which ends the node). Returns the state and the batch under test.
 */
async function takeBack(
  state: RunState,
  ctx: Ctx,
  engine: GridEngine,
  shared: SharedWork,
): Promise<{ state: RunState; batch: string[] } | { ended: Result }> {
  let next = state;
  const batch = [...checkProgress(state).batch];
  for (const r of await reconcileGrid(state, ctx, engine)) {
    next = recordResolved(next, ctx, r.cell, r.tree, r.commit, r.files, { journalled: true });
    if (!batch.includes(cellId(r.cell))) batch.push(cellId(r.cell));
  }
  next = await shared.adopt(next);
  const waiting = next.conflicts.filter((x) => x.status === 'needs_person');
  if (waiting.length > 0) {
    const taken = await takePersonsWork(next, ctx, engine, waiting);
    next = taken.state;
    batch.push(...taken.resolved);
    await releaseResolvedWorktrees(ctx, next);
    if (taken.again.length > 0)
      return { ended: await handoffToPerson(withCheckProgress(next, { batch }), ctx, taken.again) };
  } else {
    // Resolutions recorded before a kill, or by another clone, free their worktrees too.
    await releaseResolvedWorktrees(ctx, next);
  }
  // Every hand-off is taken: nothing is asked of anyone until the next one.
  if (next.handoff !== null) next = { ...next, handoff: null };
  return { state: next, batch };
}

/** Fill every cell that merges cleanly; the cells left blocked, recorded as the grid. */
async function autofill(ctx: Ctx, engine: GridEngine, state: RunState): Promise<{ state: RunState; blockers: Cell[] }> {
  const blockers = await engine.autofill({ signal: ctx.signal });
  const grid = { size: engine.size(), position: null, blockers };
  ctx.journal.append({ type: 'grid_updated', grid });
  return { state: { ...state, grid }, blockers };
}

/** The keep-or-delete choices of this round's hand-off, with those of earlier ones. */
function withHandoffChoices(ctx: Ctx, state: RunState, applied: Applied): RunState {
  const handoffChoices = { ...personChoicesOf(state).handoffChoices, ...applied.choiceKeys };
  return withRecordedChoices(state, ctx.journal, { handoffChoices });
}

/** What the round hands over: a stop for the model budget, conflicts for a person, or nothing (go on). */
async function handOver(ctx: Ctx, state: RunState, proposed: Proposed, applied: Applied): Promise<Result | null> {
  const { budget } = proposed;
  if (budget && proposed.outcomes.some((o) => !o.ok)) {
    ctx.log.decision({}, `[budget] ${budget}: the run stops; raise budget.usd, then run splintercat continue`);
    return {
      halt: 'failed',
      reason: `the model budget is spent (${budget}); raise budget.usd in splintercat.yaml, then run splintercat continue`,
      next: 'resolve_conflicts',
      state,
    };
  }
  if (applied.handed.length > 0) return handoffToPerson(state, ctx, applied.handed);
  return null;
}
