import { mapPipelined } from '../../util/pool.js';
import { compareCells, cellId, type Cell } from '../../imerge/cell.js';
import type { GridEngine } from '../ports.js';
import { prepareCell, resolvePrepared, type CellResolution } from '../resolve-cell.js';
import type { HandoffConflict, RunState } from '../../store/run-state.js';
import type { ChoiceKey } from '../../store/flow-choices.js';
import { personChoicesOf } from '../../store/flow-choices.js';
import { recoveryMemory } from '../../store/flow-recovery.js';
import { continueCommand, handoffFailure, modelAttempts } from '../handoff/index.js';
import { flagGenerated } from '../generated-warnings.js';
import { resolverTranscriptEvents } from '../transcript-events.js';
import { conflictBase, recordResolved, upsert } from '../conflict-records.js';
import { releaseResolvedWorktrees } from '../release-worktrees.js';
import type { Approval } from './approval.js';
import type { Ctx } from './common.js';

/** What the ladder proposed for a round, and why the model budget refused, when it did. */
export interface Proposed {
  outcomes: CellResolution[];
  /** Those conflicts wait for `continue` once budget.usd is raised, not for a person. */
  budget: string | null;
}

/** What applying a round's decisions gave: the state, the conflicts resolved, what to hand over. */
export interface Applied {
  state: RunState;
  resolved: string[];
  handed: HandoffConflict[];
  /** The keep-or-delete choices handed over, by conflict. */
  choiceKeys: Record<string, ChoiceKey[]>;
}

/**
 * Blocked cells down the ladder, `merge.parallel` at a time, each in its own worktree. Presenting
 * a conflict runs ahead of the resolvers, so a slot whose conversation ends finds its next
 * conflict ready (worktree creation is serialized).
 */
export function proposeResolutions(
  ctx: Ctx,
  engine: GridEngine,
  state: RunState,
  cells: Cell[],
): Promise<CellResolution[]> {
  const retry = recoveryMemory(state).retryContext;
  const { fileChoices } = personChoicesOf(state);
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
        fileChoices,
        target: state.target.originalOid,
        next: continueCommand(ctx, state.name),
      }),
  );
}

/**
 * With merge.batch_handoff, once a person is needed the rest of the blockers go down the ladder
 * too, so all that need a person are handed over at once (not when the model budget refused).
 */
export function handOffTogether(ctx: Ctx, outcomes: CellResolution[], rest: Cell[]): boolean {
  return ctx.config.merge.batch_handoff && rest.length > 0 && outcomes.some((o) => !o.ok) && !budgetRefusal(outcomes);
}

/** The round's proposals in grid order, with the model budget's refusal, if any. */
export function proposal(outcomes: CellResolution[]): Proposed {
  return { outcomes: [...outcomes].sort((a, b) => compareCells(a.cell, b.cell)), budget: budgetRefusal(outcomes) };
}

/**
 * Decide each proposal (the approval may decline one) and apply the decisions in grid order:
 * all at once, or under `--interactive` each before the next is asked.
 */
export async function decideAndApply(
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
    model: modelAttempts(outcome.transcripts ?? []),
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
