import { cellId } from '../../imerge/cell.js';
import type { ConflictFileState, RunState } from '../../store/run-state.js';
import type { SyncRecord } from '../../store/sync/record.js';
import { recordResolved } from '../conflict-records.js';
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
      const commit = await engine.recordMerge(cell, tree);
      next = recordResolved(next, ctx, cell, tree, commit, publishedFiles(record));
      const person = typeof record.body.person === 'string' ? printableName(record.body.person) : 'someone';
      ctx.log.decision(
        { cell: cellId(cell) },
        `[share] took ${cellId(cell)} as ${person} on ${printableName(record.by)} resolved it`,
      );
      adopted++;
    }
    if (adopted === 0) return next;
  }
}

/** The files of a published resolution, as the state keeps them. */
function publishedFiles(record: SyncRecord): ConflictFileState[] {
  const files = Array.isArray(record.body.files) ? (record.body.files as Array<Record<string, unknown>>) : [];
  return files.map((f) => ({
    path: String(f.path),
    kind: typeof f.kind === 'string' ? f.kind : 'content',
    decidedBy: (f.decidedBy ?? null) as ConflictFileState['decidedBy'],
    hunks: (Array.isArray(f.hunks) ? (f.hunks as Array<Record<string, unknown>>) : []).map((h, k) => ({
      index: typeof h.index === 'number' ? h.index : k + 1,
      status: 'resolved' as const,
      rung: (h.rung ?? null) as ConflictFileState['hunks'][number]['rung'],
      by: typeof h.by === 'string' ? h.by : null,
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
    halt: 'needs_human',
    reason,
    next: 'resolve_conflicts',
    state: { ...state, human: null },
  };
}
