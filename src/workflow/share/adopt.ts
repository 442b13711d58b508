import { cellId } from '../../imerge/cell.js';
import type { ConflictFileState, RunState } from '../../store/run-state.js';
import type { SyncRecord } from '../../store/sync/record.js';
import { resolutionFiles } from '../../store/sync/record-shapes.js';
import { recordResolved } from '../conflict-records.js';
import { withCellDrops } from '../drops/index.js';
import type { Ctx, Result } from '../nodes/common.js';
import type { GridEngine } from '../ports.js';
import type { HeldClaim } from '../../store/sync/claims.js';
import { printableName } from '../../util/safe-print.js';
import { describe, type RunShare } from './run-share.js';

/**
 * Take into this machine's grid the resolutions other machines published: each blocked cell with
 * a published resolution is recorded from its tree (a commit of this grid's own parents, the same
 * tree), then autofill goes on past it. Nothing is asked again and nothing is checked again here:
 * the machine that resolved a conflict checks it.
 */
export async function adoptPublished(
  state: RunState,
  ctx: Ctx,
  engine: GridEngine,
  share: RunShare,
): Promise<RunState> {
  const published = await share.pull();
  if (published === null || published.size === 0) return state;
  let next = state;
  for (;;) {
    const blockers = await engine.autofill({ signal: ctx.signal });
    let adopted = 0;
    for (const cell of blockers) {
      const record = published.get(cellId(cell));
      if (!record) continue;
      const tree = String(record.key.tree);
      if ((await ctx.git.revParse(`${tree}^{tree}`)) === null) continue; // its objects are not here yet
      const { above, left } = await engine.conflictCell(cell);
      // What the resolution dropped is audited here, on this clone's own objects: a teammate's
      // record says who decided, never what was lost.
      const files = await withCellDrops(ctx.git, { above, left, tree }, publishedFiles(record), ctx.log);
      const commit = await engine.recordMerge(cell, tree);
      next = recordResolved(next, ctx, cell, tree, commit, files);
      const person = typeof record.body.person === 'string' ? printableName(record.body.person) : 'someone';
      ctx.log.decision(
        { cell: cellId(cell) },
        `[share] took ${cellId(cell)} as ${person} on ${printableName(record.by)} resolved it`,
      );
      sayEditsUnused(ctx, state, cellId(cell));
      adopted++;
    }
    if (adopted === 0) return next;
  }
}

/**
 * A conflict handed to a person here was resolved and published elsewhere first (a lease taken
 * over while its holder still worked): the published one is the run's, and the person is told
 * that their edits were not used and where they still are (a handed-over worktree is never removed).
 */
function sayEditsUnused(ctx: Ctx, state: RunState, id: string): void {
  const handed = state.handoff?.conflicts.find((c) => c.conflict === id);
  if (handed === undefined) return;
  ctx.log.warn(
    { cell: id, worktree: handed.worktree },
    `[share] ${id} was published resolved by another clone before your edits were taken: they are not used, and are still in ${printableName(handed.worktree)}`,
  );
}

/**
 * The files of a published resolution, as the state keeps them: typed and checked by the
 * record's shape (record-shapes.ts: each path inside the repository, each rung a known one),
 * never cast.
 */
function publishedFiles(record: SyncRecord): ConflictFileState[] {
  return resolutionFiles(record).map((f) => ({
    path: f.path,
    kind: f.kind,
    decidedBy: f.decidedBy,
    hunks: f.hunks.map((h) => ({
      index: h.index,
      status: 'resolved' as const,
      rung: h.rung,
      by: h.by,
      cacheKey: null,
    })),
  }));
}

/** Every blocked conflict is held by another machine: stop, saying who holds what and until when. */
export function heldElsewhere(state: RunState, held: HeldClaim[]): Result {
  const lines = held.map((c) => `${printableName(c.conflict)} by ${describe(c)} until ${printableName(c.expires)}`);
  // Nothing held and nothing free: the rest was resolved elsewhere, its objects not fetched yet.
  const reason =
    held.length === 0
      ? 'every open conflict was resolved on another machine whose published objects are not in this clone yet: run splintercat continue again later to take them in'
      : `every open conflict is held by another machine (${lines.join('; ')}): run splintercat continue again once one is resolved or its lease runs out`;
  return {
    halt: 'needs_person',
    reason,
    next: 'resolve_conflicts',
    state: { ...state, handoff: null },
  };
}
