import { mapPipelined } from '../../util/pool.js';
import { compareCells, cellId, type Cell } from '../../imerge/cell.js';
import type { GridEngine } from '../ports.js';
import { prepareCell, resolvePrepared, type CellResolution } from '../resolve-cell.js';
import type { HandoffConflict, RunState } from '../../store/run-state.js';
import { continueCommand, handoffToPerson, handoffFailure, modelAttempts, takePersonsWork } from '../handoff/index.js';
import { flagGenerated } from '../generated-check.js';
import { resolverTranscriptEvents } from '../transcript-events.js';
import type { Ctx, Result } from './common.js';
import { checkProgress, withCheckProgress } from '../../store/flow-checks.js';
import { personChoicesOf, withPersonChoices, type PersonChoices } from '../../store/flow-choices.js';
import { recoveryMemory, type RecoveryMemory } from '../../store/flow-recovery.js';
import { reconcileGrid } from './reconcile-grid.js';
import { conflictBase, recordResolved, upsert } from '../conflict-records.js';
import { adoptPublished, heldElsewhere } from '../share/adopt.js';
import { releaseResolvedWorktrees } from '../release-worktrees.js';

function quota(state: RunState): number {
  const s = state.strategy;
  if (!s || s.kind === 'per_conflict') return 1;
  if (s.kind === 'batch') return s.batchSize ?? 10;
  return Number.POSITIVE_INFINITY;
}

/** One round of resolving: the state so far and what the round gathers for the hand-off. */
interface Round {
  ctx: Ctx;
  engine: GridEngine;
  next: RunState;
  batch: string[];
  choiceKeys: PersonChoices['handoffChoices'];
  human: HandoffConflict[];
  /** Why the model budget refused, when it did: those conflicts wait for `continue`, not for a person. */
  budget: string | null;
  retry: RecoveryMemory['retryContext'];
}

/** A conflict the ladder could not finish: pending again (budget) or handed to a person with what it needs. */
async function leaveUnresolved(round: Round, outcome: Extract<CellResolution, { ok: false }>): Promise<void> {
  const { ctx, engine } = round;
  const base = conflictBase(round.next, outcome.cell);
  if (round.budget) {
    // Not a human's job: once budget.usd is raised, `continue` asks the model again.
    const conflicts = upsert(round.next.conflicts, { ...base, status: 'pending', files: outcome.files });
    round.next = { ...round.next, conflicts };
    return;
  }
  const conflicts = upsert(round.next.conflicts, { ...base, status: 'needs_human', files: outcome.files });
  round.next = { ...round.next, conflicts };
  const id = cellId(outcome.cell);
  if (outcome.choiceKeys.length > 0) round.choiceKeys[id] = outcome.choiceKeys;
  // A retry the resolver could not finish: the person sees the failure that brought the conflict back.
  const failure = round.retry[id] ? await handoffFailure(ctx, engine, round.next, outcome.cell, outcome.left) : null;
  round.human.push({
    conflict: id,
    worktree: outcome.worktree,
    files: outcome.handoff,
    failure,
    model: modelAttempts(outcome.transcripts ?? []),
    refused: [],
    warnings: outcome.warnings ?? [],
  });
}

/**
 * Apply the outcomes decided, in grid order. The resolutions among them go into the grid in one
 * ref transaction, before any of them is journalled (a kill in between leaves recorded merges
 * without their event, which reconcileGrid resolves again).
 */
async function applyDecided(round: Round, decided: CellResolution[]): Promise<void> {
  const accepted = decided.filter((o): o is Extract<CellResolution, { ok: true }> => o.ok);
  const commits = await round.engine.recordMerges(accepted.map((o) => ({ cell: o.cell, tree: o.tree })));
  for (const outcome of decided) {
    if (outcome.ok) {
      const commit = commits[accepted.indexOf(outcome)] as string;
      round.next = recordResolved(round.next, round.ctx, outcome.cell, outcome.tree, commit, outcome.files);
      round.batch.push(cellId(outcome.cell));
    } else await leaveUnresolved(round, outcome);
  }
  decided.length = 0;
  if (accepted.length > 0) await releaseResolvedWorktrees(round.ctx, round.next);
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

/**
 * Resolve `take` of the sorted blockers (and, with merge.batch_handoff, the rest once a person is
 * needed, so all that need a person are handed over at once). Returns the result that ends the
 * node, or null to autofill and go on.
 */
async function resolveRound(round: Round, sorted: Cell[], take: Cell[]): Promise<Result | null> {
  const { ctx, engine } = round;
  const outcomes = await resolveBlocked(ctx, engine, round.next, take);
  const rest = sorted.slice(take.length);
  if (ctx.config.merge.batch_handoff && rest.length > 0 && outcomes.some((o) => !o.ok) && !budgetRefusal(outcomes))
    outcomes.push(...(await resolveBlocked(ctx, engine, round.next, rest)));
  round.budget = budgetRefusal(outcomes);
  const decided: CellResolution[] = [];
  for (const proposed of outcomes.sort((a, b) => compareCells(a.cell, b.cell))) {
    // --interactive: the user answers for each resolution, maybe much later; what is decided is recorded first.
    if (ctx.approver) await applyDecided(round, decided);
    journalProposed(ctx, proposed);
    decided.push(proposed.ok ? await approved(ctx, engine, proposed) : proposed);
  }
  await applyDecided(round, decided);
  round.next = withPersonChoices(withCheckProgress(round.next, { batch: round.batch }), {
    handoffChoices: round.choiceKeys,
  });
  const { budget } = round;
  if (budget && outcomes.some((o) => !o.ok)) {
    ctx.log.decision({}, `[budget] ${budget}: the run stops; raise budget.usd, then run splintercat continue`);
    return {
      halt: 'failed',
      reason: `the model budget is spent (${budget}); raise budget.usd in splintercat.yaml, then run splintercat continue`,
      next: 'resolve_conflicts',
      state: round.next,
    };
  }
  if (round.human.length > 0) return handoffToPerson(round.next, ctx, round.human);
  return null;
}

/**
 * ResolveConflicts: autofill, then resolve blocked cells down the ladder until the
 * strategy's quota (1, N, or all) is reached. Independent blockers are resolved
 * concurrently (`merge.parallel`), each in its own worktree, and recorded in grid
 * order. Anything the ladder cannot finish stops the run for a human (exit 3).
 */
export async function resolveConflicts(state: RunState, ctx: Ctx): Promise<Result> {
  const engine = await ctx.engine();
  let next = state;
  const batch = [...checkProgress(state).batch];

  // After a kill: resolutions already journalled are taken as they are (never asked again).
  for (const r of await reconcileGrid(state, ctx, engine)) {
    next = recordResolved(next, ctx, r.cell, r.tree, r.commit, r.files, { journalled: true });
    if (!batch.includes(cellId(r.cell))) batch.push(cellId(r.cell));
  }

  // A shared run: what other machines resolved is taken as they published it.
  if (ctx.share) next = await adoptPublished(next, ctx, engine, ctx.share);

  // A human was asked to finish some conflicts: take their edits first.
  const waiting = next.conflicts.filter((x) => x.status === 'needs_human');
  if (waiting.length > 0) {
    const taken = await takePersonsWork(next, ctx, engine, waiting);
    next = taken.state;
    for (const c of taken.resolved) batch.push(c);
    await releaseResolvedWorktrees(ctx, next);
    if (taken.again.length > 0) return handoffToPerson(withCheckProgress(next, { batch }), ctx, taken.again);
  }

  // Resolutions recorded before a kill, or by another clone, free their worktrees too.
  if (waiting.length === 0) await releaseResolvedWorktrees(ctx, next);

  // Every hand-off is taken: nothing is asked of anyone until the next one.
  if (next.human !== null) next = { ...next, human: null };

  const limit = quota(state);
  let blockers: Cell[] = [];
  for (;;) {
    if (ctx.signal.aborted) break;
    if (ctx.share && batch.length > 0) next = await adoptPublished(next, ctx, engine, ctx.share);
    blockers = await engine.autofill({ signal: ctx.signal });
    next = { ...next, grid: { size: engine.size(), position: null, blockers } };
    ctx.journal.append({ type: 'grid_updated', grid: next.grid! });
    const room = limit - batch.length;
    if (blockers.length === 0 || room <= 0) break;
    let sorted = [...blockers].sort(compareCells);
    if (ctx.share) {
      // Only conflicts this machine holds a claim on: the others are someone else's work.
      const selection = await ctx.share.select(sorted);
      // Resolutions of this machine's own are checked before it waits for the others.
      if (selection.mine.length === 0 && batch.length > 0) break;
      if (selection.mine.length === 0 && (selection.adoptable || (await ctx.share.awaitOthers(ctx.signal)))) {
        next = await adoptPublished(next, ctx, engine, ctx.share);
        continue;
      }
      if (selection.mine.length === 0) return heldElsewhere(withCheckProgress(next, { batch }), selection.heldByOthers);
      sorted = selection.mine;
    }
    const take = sorted.slice(0, Number.isFinite(room) ? room : sorted.length);
    const round: Round = {
      ...{ ctx, engine, next, batch, choiceKeys: { ...personChoicesOf(next).handoffChoices }, human: [] },
      ...{ budget: null, retry: recoveryMemory(next).retryContext },
    };
    const ended = await resolveRound(round, sorted, take);
    if (ended) return ended;
    next = round.next;
  }
  next = withCheckProgress(next, { batch });
  if (batch.length > 0) return { next: 'check', state: next };
  return { next: blockers.length === 0 ? 'finalize' : 'resolve_conflicts', state: next };
}

/**
 * Blocked cells down the ladder, `merge.parallel` at a time, each in its own worktree. Presenting
 * a conflict runs ahead of the resolvers, so a slot whose conversation ends finds its next
 * conflict ready (worktree creation is serialized).
 */
function resolveBlocked(ctx: Ctx, engine: GridEngine, state: RunState, cells: Cell[]): Promise<CellResolution[]> {
  const retry = recoveryMemory(state).retryContext;
  return mapPipelined(
    cells,
    ctx.config.merge.parallel,
    (cell) => {
      const id = cellId(cell);
      if (!state.conflicts.some((c) => c.id === id)) {
        ctx.journal.append({ type: 'conflict_found', conflict: id, cell, files: [] });
        ctx.log.info({ cell: id }, `conflict at ${id}`);
      }
      return prepareCell(ctx, engine, cell);
    },
    (prepared) =>
      resolvePrepared(ctx, prepared, {
        failure: retry[cellId(prepared.cell)] ?? null,
        fileChoices: personChoicesOf(state).fileChoices,
        target: state.target.originalOid,
        next: continueCommand(ctx, state.name),
      }),
  );
}

/**
 * `--interactive`: show the resolution to the user before it is recorded. A declined one is
 * presented again as a plain conflict in its worktree and handed to the human.
 */
async function approved(
  ctx: Ctx,
  engine: GridEngine,
  outcome: Extract<CellResolution, { ok: true }>,
): Promise<CellResolution> {
  if (!ctx.approver) return outcome;
  const id = cellId(outcome.cell);
  const details = await engine.conflictCell(outcome.cell);
  const paths = outcome.files.map((f) => f.path);
  const against = async (side: string, label: string): Promise<string> => {
    const text =
      paths.length > 0
        ? await ctx.git.text(['diff', '--no-color', '--no-ext-diff', side, outcome.tree, '--', ...paths])
        : '';
    return `Against ${label}:\n${text || '(identical)'}\n`;
  };
  const diff = (await against(details.above, 'the fork side')) + (await against(details.left, 'the upstream side'));
  const summary = outcome.files.map(
    (f) =>
      `${f.path}: ${f.hunks.map((h) => `hunk ${h.index} by ${h.rung === 'rule' || h.rung === 'model' ? `${h.rung} (${h.by})` : h.rung}`).join(', ') || `${f.kind} decision`}`,
  );
  if (await ctx.approver.approveResolution({ conflict: id, summary, diff })) return outcome;
  ctx.journal.append({
    type: 'decision',
    kind: 'resolution',
    by: 'user',
    decision: 'declined',
    reasoning: `The resolution of ${id} was declined in --interactive mode`,
    conflicts: [id],
  });
  ctx.log.decision({ cell: id }, `[user] Declined the resolution of ${id}: handed to a human`);
  const { path, unmerged } = await ctx.worktrees.presentMerge(
    ctx.worktrees.conflictId(outcome.cell),
    details.above,
    details.left,
  );
  const files = outcome.files.map((f) => ({
    ...f,
    hunks: f.hunks.map((h) => ({ ...h, status: 'needs_human' as const, rung: null, by: null, cacheKey: null })),
  }));
  const handoff = outcome.files.map((f) => ({
    path: f.path,
    kind: f.kind,
    ...(f.hunks.length > 0 ? { hunks: f.hunks.length } : {}),
    instructions: `the resolution of ${f.path} was declined: edit ${f.path} (remove every marker line), or settle it with git add / git rm`,
  }));
  return {
    ok: false,
    cell: outcome.cell,
    worktree: path,
    files,
    left: unmerged.length > 0 ? unmerged : paths,
    handoff,
    choiceKeys: [],
  };
}

/** The budget refusal that left a conflict open, if the model was refused for budget. */
function budgetRefusal(outcomes: CellResolution[]): string | null {
  for (const o of outcomes)
    for (const t of o.transcripts ?? []) if (!t.outcome.ok && t.outcome.reason === 'budget') return t.outcome.message;
  return null;
}
