import { cellId, type Cell } from '../../imerge/cell.js';
import type { GridEngine } from '../ports.js';
import type { RunEvent } from '../../store/run-events.js';
import type { ConflictFileState, RunState } from '../../store/run-state.js';
import type { Ctx } from './common.js';

/** A resolution the journal recorded but the saved state does not know yet. */
export interface JournalledResolution {
  cell: Cell;
  tree: string;
  commit: string;
  files: ConflictFileState[];
}

type ResolvedEvent = Extract<RunEvent, { type: 'conflict_resolved' }>;

/**
 * Bring the grid and the state together after a kill. A resolution is written to the grid
 * (refs) first, then journalled (`conflict_resolved`), and the state is saved only when the
 * node ends; a kill in between leaves recorded merges the state does not know. Those the
 * journal recorded for this attempt are returned, to be adopted as they were (no second
 * event, no second model call); the others were never journalled, so they are dropped from
 * the grid and their cells are resolved again (the resolution cache makes that free).
 * The journal is read only when such a merge exists, i.e. on the first entry after a kill.
 */
export async function reconcileGrid(state: RunState, ctx: Ctx, engine: GridEngine): Promise<JournalledResolution[]> {
  const unknown = engine.recordedMerges().filter(({ cell, commit }) => {
    const known = state.conflicts.find((c) => c.id === cellId(cell));
    return !(known?.status === 'resolved' && known.resolutionCommit === commit);
  });
  if (unknown.length === 0) return [];

  const journalled = new Map<string, ResolvedEvent>();
  for (const e of ctx.journal.read().entries)
    if (e.type === 'conflict_resolved' && e.attempt === state.currentAttempt) journalled.set(e.conflict, e);
  const adopted: JournalledResolution[] = [];
  const dropped: Cell[] = [];
  for (const { cell, commit } of unknown) {
    const e = journalled.get(cellId(cell));
    if (e !== undefined && e.commit === commit && e.tree !== null)
      adopted.push({ cell, tree: e.tree, commit, files: filesOf(e) });
    else dropped.push(cell);
  }
  if (dropped.length > 0) {
    await engine.forget(dropped);
    ctx.log.decision(
      { cells: dropped.map(cellId) },
      `[resolver] ${dropped.map(cellId).join(', ')}: recorded in the grid but never journalled (interrupted); resolving again`,
    );
  }
  return adopted;
}

function filesOf(e: ResolvedEvent): ConflictFileState[] {
  return e.files.map((f) => ({
    path: f.path,
    kind: f.kind ?? 'content',
    hunks: f.hunks.map((h) => ({
      index: h.index,
      status: 'resolved' as const,
      rung: h.rung,
      by: h.by,
      cacheKey: h.cacheKey ?? null,
    })),
    ...(f.drops ? { drops: f.drops } : {}),
  }));
}
