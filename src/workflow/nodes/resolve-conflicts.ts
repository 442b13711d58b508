import { mapPipelined } from '../../util/pool.js';
import { compareCells, cellId, type Cell } from '../../imerge/cell.js';
import type { GridEngine } from '../ports.js';
import { prepareCell, resolvePrepared, type CellResolution, type PreparedCell } from '../resolve-cell.js';
import type { HandoffConflict, RunState } from '../../store/run-state.js';
import { checkProgress, withCheckProgress } from '../../store/flow-checks.js';
import { personChoicesOf, withRecordedChoices, type ChoiceKey } from '../../store/flow-choices.js';
import { recoveryMemory } from '../../store/flow-recovery.js';
import { continueCommand, handoffFailure, handoffToPerson, modelAttempts, takePersonsWork } from '../handoff/index.js';
import { flagGenerated } from '../generated-warnings.js';
import { resolverTranscriptEvents } from '../transcript-events.js';
import { conflictBase, recordResolved, upsert } from '../conflict-records.js';
import { releaseResolvedWorktrees } from '../release-worktrees.js';
import { approval, type Approval } from './approval.js';
import type { Ctx, Result } from './common.js';
import { reconcileGrid } from './reconcile-grid.js';
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
    const rest = turn.cells.slice(take.length);
    const { prepare, resolve } = cellLadder(ctx, engine, next);
    const parallel = ctx.config.merge.parallel;
    let outcomes = await mapPipelined(take, parallel, prepare, resolve);
    if (handOffTogether(ctx, outcomes, rest))
      outcomes = [...outcomes, ...(await mapPipelined(rest, parallel, prepare, resolve))];
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
  const grid = { size: engine.size(), position: null, blockers, filled: engine.filledCells() };
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

/** What the ladder proposed for a round, and why the model budget refused, when it did. */
interface Proposed {
  outcomes: CellResolution[];
  /** Those conflicts wait for `continue` once budget.usd is raised, not for a person. */
  budget: string | null;
}

/** What applying a round's decisions gave: the state, the conflicts resolved, what to hand over. */
interface Applied {
  state: RunState;
  resolved: string[];
  handed: HandoffConflict[];
  /** The keep-or-delete choices handed over, by conflict. */
  choiceKeys: Record<string, ChoiceKey[]>;
}

/**
 * The two stages of a blocked cell down the ladder, for `mapPipelined` (`merge.parallel` at a
 * time, each cell in its own worktree): presenting a conflict runs ahead of the resolvers, so a
 * slot whose conversation ends finds its next conflict ready (worktree creation is serialized).
 */
function cellLadder(
  ctx: Ctx,
  engine: GridEngine,
  state: RunState,
): { prepare: (cell: Cell) => Promise<PreparedCell>; resolve: (prepared: PreparedCell) => Promise<CellResolution> } {
  const retry = recoveryMemory(state).retryContext;
  const { fileChoices, wholeFiles } = personChoicesOf(state);
  const next = continueCommand(ctx, state.name);
  return {
    prepare: (cell) => {
      const id = cellId(cell);
      if (!state.conflicts.some((c) => c.id === id)) {
        ctx.journal.append({ type: 'conflict_found', conflict: id, cell, files: [] });
        ctx.log.info({ cell: id }, `conflict at ${id}`);
      }
      return prepareCell(ctx, engine, cell);
    },
    resolve: (prepared) =>
      resolvePrepared(ctx, prepared, {
        failure: retry[cellId(prepared.cell)] ?? null,
        fileChoices,
        decidedOnce: wholeFiles,
        target: state.fork.originalOid,
        next,
      }),
  };
}

/**
 * With merge.batch_handoff, once a person is needed the rest of the blockers go down the ladder
 * too, so all that need a person are handed over at once (not when the model budget refused).
 */
function handOffTogether(ctx: Ctx, outcomes: CellResolution[], rest: Cell[]): boolean {
  return ctx.config.merge.batch_handoff && rest.length > 0 && outcomes.some((o) => !o.ok) && !budgetRefusal(outcomes);
}

/** The round's proposals in grid order, with the model budget's refusal, if any. */
function proposal(outcomes: CellResolution[]): Proposed {
  return { outcomes: [...outcomes].sort((a, b) => compareCells(a.cell, b.cell)), budget: budgetRefusal(outcomes) };
}

/**
 * Decide each proposal (the approval may decline one) and apply the decisions in grid order:
 * all at once, or under `--interactive` each before the next is asked.
 */
async function decideAndApply(
  ctx: Ctx,
  engine: GridEngine,
  state: RunState,
  proposed: Proposed,
  approval: Approval,
): Promise<Applied> {
  let applied: Applied = { state, resolved: [], handed: [], choiceKeys: {} };
  const apply = async (decided: CellResolution[]): Promise<void> => {
    const more = await applyDecided(ctx, engine, applied.state, decided, proposed.budget);
    applied = {
      state: more.state,
      resolved: [...applied.resolved, ...more.resolved],
      handed: [...applied.handed, ...more.handed],
      choiceKeys: { ...applied.choiceKeys, ...more.choiceKeys },
    };
  };
  const decided: CellResolution[] = [];
  for (const outcome of proposed.outcomes) {
    journalProposed(ctx, outcome);
    const decision = outcome.ok ? await approval.review(outcome) : outcome;
    if (approval.oneByOne) await apply([decision]);
    else decided.push(decision);
  }
  if (!approval.oneByOne) await apply(decided);
  return applied;
}

/**
 * Apply decided outcomes, in grid order. The resolutions among them go into the grid in one ref
 * transaction, before any of them is journalled (a kill in between leaves recorded merges
 * without their event, which reconcileGrid resolves again).
 */
async function applyDecided(
  ctx: Ctx,
  engine: GridEngine,
  state: RunState,
  decided: readonly CellResolution[],
  budget: string | null,
): Promise<Applied> {
  const accepted = decided.filter((o): o is Extract<CellResolution, { ok: true }> => o.ok);
  const commits = await engine.recordMerges(accepted.map((o) => ({ cell: o.cell, tree: o.tree })));
  let next = state;
  const resolved: string[] = [];
  const handed: HandoffConflict[] = [];
  const choiceKeys: Record<string, ChoiceKey[]> = {};
  for (const outcome of decided) {
    if (outcome.ok) {
      const commit = commits[accepted.indexOf(outcome)] as string;
      next = recordResolved(next, ctx, outcome.cell, outcome.tree, commit, outcome.files);
      resolved.push(cellId(outcome.cell));
      continue;
    }
    const left = await leaveUnresolved(ctx, engine, next, outcome, budget);
    next = left.state;
    if (left.handoff) handed.push(left.handoff);
    if (outcome.choiceKeys.length > 0 && left.handoff) choiceKeys[cellId(outcome.cell)] = outcome.choiceKeys;
  }
  if (accepted.length > 0) await releaseResolvedWorktrees(ctx, next);
  return { state: next, resolved, handed, choiceKeys };
}

/** A conflict the ladder could not finish: pending again (budget), or handed to a person with what it needs. */
async function leaveUnresolved(
  ctx: Ctx,
  engine: GridEngine,
  state: RunState,
  outcome: Extract<CellResolution, { ok: false }>,
  budget: string | null,
): Promise<{ state: RunState; handoff: HandoffConflict | null }> {
  const base = conflictBase(state, outcome.cell);
  // Not a person's job: once budget.usd is raised, `continue` asks the model again.
  const status = budget ? ('pending' as const) : ('needs_person' as const);
  const next = { ...state, conflicts: upsert(state.conflicts, { ...base, status, files: outcome.files }) };
  if (budget) return { state: next, handoff: null };
  const id = cellId(outcome.cell);
  // A retry the resolver could not finish: the person sees the failure that brought the conflict back.
  const retried = recoveryMemory(state).retryContext[id] !== undefined;
  const failure = retried ? await handoffFailure(ctx, engine, next, outcome.cell, outcome.left) : null;
  const handoff: HandoffConflict = {
    conflict: id,
    worktree: outcome.worktree,
    files: outcome.handoff,
    failure,
    model: modelAttempts(outcome.transcripts ?? [], outcome.withheld ?? []),
    refused: [],
    warnings: outcome.warnings ?? [],
  };
  return { state: next, handoff };
}

/** Journal what the ladder did for one conflict before it is applied: the model's transcript, generated files, cache replays. */
function journalProposed(ctx: Ctx, proposed: CellResolution): void {
  const id = cellId(proposed.cell);
  for (const event of resolverTranscriptEvents(id, proposed.transcripts ?? [])) ctx.journal.append(event);
  flagGenerated(ctx, proposed.warnings ?? [], id);
  for (const line of proposed.replayed ?? []) {
    ctx.journal.append({
      type: 'decision',
      kind: 'file-level',
      by: 'runner',
      decision: 'cache',
      reasoning: line,
      conflicts: [id],
    });
    ctx.log.decision({ cell: id }, `[cache] ${line}`);
  }
}

/** The budget refusal that left a conflict open, if the model was refused for budget. */
function budgetRefusal(outcomes: CellResolution[]): string | null {
  for (const o of outcomes)
    for (const t of o.transcripts ?? []) if (!t.outcome.ok && t.outcome.reason === 'budget') return t.outcome.message;
  return null;
}
