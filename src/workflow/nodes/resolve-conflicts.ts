import { mapPipelined } from '../../util/pool.js';
import { compareCells, cellId, type Cell } from '../../imerge/cell.js';
import type { GridEngine } from '../ports.js';
import { prepareCell, resolvePrepared, type CellResolution } from '../resolve-cell.js';
import type { HandoffConflict, RunState } from '../../store/run-state.js';
import { handoffFailure } from '../handoff-failure.js';
import { flagGenerated } from '../generated-check.js';
import { modelAttempts } from '../handoff.js';
import { continueCommand, handOff, takePersonsWork } from '../human.js';
import { resolverTranscriptEvents } from '../transcript-events.js';
import { flow, withFlow, type Ctx, type Result } from './common.js';
import { reconcileGrid } from './reconcile-grid.js';
import { conflictBase, recordResolved, upsert } from '../conflict-records.js';
import { adoptPublished, heldElsewhere } from '../share/adopt.js';

function quota(state: RunState): number {
  const s = state.strategy;
  if (!s || s.kind === 'per_conflict') return 1;
  if (s.kind === 'batch') return s.batchSize ?? 10;
  return Number.POSITIVE_INFINITY;
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
  const batch = [...(flow(state).batch ?? [])];

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
    if (taken.again.length > 0) return handOff(withFlow(next, { batch }), ctx, taken.again);
  }

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
      if (selection.mine.length === 0) return heldElsewhere(withFlow(next, { batch }), selection.heldByOthers);
      sorted = selection.mine;
    }
    const take = sorted.slice(0, Number.isFinite(room) ? room : sorted.length);
    const retry = flow(next).retryContext ?? {};
    const outcomes = await resolveBlocked(ctx, engine, next, take);
    // A person is needed: every other conflict already known goes down the ladder now, so all
    // that need a person are handed over at once and nobody waits for a check in between.
    const rest = sorted.slice(take.length);
    if (ctx.config.merge.batch_handoff && rest.length > 0 && outcomes.some((o) => !o.ok) && !budgetRefusal(outcomes))
      outcomes.push(...(await resolveBlocked(ctx, engine, next, rest)));
    const human: HandoffConflict[] = [];
    const choiceKeys = { ...(flow(next).handoffChoices ?? {}) };
    const budget = budgetRefusal(outcomes);
    // Outcomes decided and not yet applied, in grid order. The resolutions among them go into the
    // grid in one ref transaction, before any of them is journalled (a kill in between leaves
    // recorded merges without their event, which reconcileGrid resolves again).
    const decided: CellResolution[] = [];
    const apply = async (): Promise<void> => {
      const accepted = decided.filter((o): o is Extract<CellResolution, { ok: true }> => o.ok);
      const commits = await engine.recordMerges(accepted.map((o) => ({ cell: o.cell, tree: o.tree })));
      for (const outcome of decided) {
        if (outcome.ok) {
          next = recordResolved(
            next,
            ctx,
            outcome.cell,
            outcome.tree,
            commits[accepted.indexOf(outcome)] as string,
            outcome.files,
          );
          batch.push(cellId(outcome.cell));
        } else if (budget) {
          // Not a human's job: once budget.usd is raised, `continue` asks the model again.
          next = {
            ...next,
            conflicts: upsert(next.conflicts, {
              ...conflictBase(next, outcome.cell),
              status: 'pending',
              files: outcome.files,
            }),
          };
        } else {
          next = {
            ...next,
            conflicts: upsert(next.conflicts, {
              ...conflictBase(next, outcome.cell),
              status: 'needs_human',
              files: outcome.files,
            }),
          };
          const id = cellId(outcome.cell);
          if (outcome.choiceKeys.length > 0) choiceKeys[id] = outcome.choiceKeys;
          // A retry the resolver could not finish: the person sees the failure that brought the conflict back.
          const failure = retry[id] ? await handoffFailure(ctx, engine, next, outcome.cell, outcome.left) : null;
          human.push({
            conflict: id,
            worktree: outcome.worktree,
            files: outcome.handoff,
            failure,
            model: modelAttempts(outcome.transcripts ?? []),
            refused: [],
            warnings: outcome.warnings ?? [],
          });
        }
      }
      decided.length = 0;
    };
    for (const proposed of outcomes.sort((a, b) => compareCells(a.cell, b.cell))) {
      // --interactive: the user answers for each resolution, maybe much later; what is decided is recorded first.
      if (ctx.approver) await apply();
      for (const event of resolverTranscriptEvents(cellId(proposed.cell), proposed.transcripts ?? []))
        ctx.journal.append(event);
      flagGenerated(ctx, proposed.warnings ?? [], cellId(proposed.cell));
      for (const line of proposed.replayed ?? []) {
        ctx.journal.append({
          type: 'decision',
          kind: 'file-level',
          by: 'runner',
          decision: 'cache',
          reasoning: line,
          conflicts: [cellId(proposed.cell)],
        });
        ctx.log.decision({ cell: cellId(proposed.cell) }, `[cache] ${line}`);
      }
      decided.push(proposed.ok ? await approved(ctx, engine, proposed) : proposed);
    }
    await apply();
    next = withFlow(next, { batch, handoffChoices: choiceKeys });
    if (budget && outcomes.some((o) => !o.ok)) {
      ctx.log.decision({}, `[budget] ${budget}: the run stops; raise budget.usd, then run splintercat continue`);
      return {
        halt: 'failed',
        reason: `the model budget is spent (${budget}); raise budget.usd in splintercat.yaml, then run splintercat continue`,
        next: 'resolve_conflicts',
        state: next,
      };
    }
    if (human.length > 0) return handOff(next, ctx, human);
  }
  next = withFlow(next, { batch });
  if (batch.length > 0) return { next: 'check', state: next };
  return { next: blockers.length === 0 ? 'finalize' : 'resolve_conflicts', state: next };
}

/**
 * Blocked cells down the ladder, `merge.parallel` at a time, each in its own worktree. Presenting
 * a conflict runs ahead of the resolvers, so a slot whose conversation ends finds its next
 * conflict ready (worktree creation is serialized).
 */
function resolveBlocked(ctx: Ctx, engine: GridEngine, state: RunState, cells: Cell[]): Promise<CellResolution[]> {
  const retry = flow(state).retryContext ?? {};
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
        fileChoices: flow(state).fileChoices ?? {},
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
