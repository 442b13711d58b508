import type { Cell } from '../imerge/cell.js';
import { cellId } from '../imerge/cell.js';
import type { ConflictState, RunState } from '../store/run-state.js';
import { pendingConflict } from '../store/pending-conflict.js';
import { unknownRung, type Rung } from '../store/rung.js';
import type { Ctx } from './nodes/common.js';

/** The conflicts with `next` in place of the one of the same id (or added). */
export function upsert(conflicts: ConflictState[], next: ConflictState): ConflictState[] {
  const i = conflicts.findIndex((c) => c.id === next.id);
  return i < 0 ? [...conflicts, next] : conflicts.map((c, k) => (k === i ? next : c));
}

/** The state's record of the conflict at `cell`, or a new pending one. */
export function conflictBase(state: RunState, cell: Cell): ConflictState {
  const id = cellId(cell);
  const known = state.conflicts.find((c) => c.id === id);
  return known ?? pendingConflict(id, cell);
}

/**
 * Mark a conflict resolved in the state and journal it (after its merge is in the grid, so a kill
 * in between is found by reconcileGrid); `journalled`: the event is already in the journal.
 */
export function recordResolved(
  state: RunState,
  ctx: Ctx,
  cell: Cell,
  tree: string,
  commit: string,
  files: ConflictState['files'],
  options: { journalled?: boolean; outsideEdits?: string[] } = {},
): RunState {
  const { outsideEdits: _earlier, ...base } = conflictBase(state, cell);
  const outside = options.outsideEdits ?? [];
  const resolved: ConflictState = {
    ...base,
    ...(outside.length > 0 ? { outsideEdits: outside } : {}),
    status: 'resolved',
    files,
    resolutionTree: tree,
    resolutionCommit: commit,
    attempts: base.attempts + 1,
    resolvedInAttempt: state.currentAttempt,
  };
  if (!options.journalled) {
    ctx.journal.append({
      type: 'conflict_resolved',
      conflict: base.id,
      cell,
      attempt: state.currentAttempt,
      files: files.map((f) => ({
        path: f.path,
        kind: f.kind,
        hunks: f.hunks
          .filter((h) => h.rung !== null)
          .map((h) => ({
            index: h.index,
            rung: h.rung!,
            by: h.by ?? '',
            ...(h.cacheKey ? { cacheKey: h.cacheKey } : {}),
          })),
        ...(f.drops ? { drops: f.drops } : {}),
      })),
      tree,
      commit,
      ...(outside.length > 0 ? { outsideEdits: outside } : {}),
    });
  }
  const rungs = files.flatMap((f) => f.hunks.map((h) => `${f.path}#${h.index}:${hunkWho(h.rung, h.by)}`));
  ctx.log.decision({ cell: base.id }, `[resolver] Resolved ${base.id}: ${rungs.join(', ') || 'file-level decisions'}`);
  const attempts = state.attempts.map((a) =>
    a.number === state.currentAttempt ? { ...a, resolutions: [...new Set([...a.resolutions, base.id])] } : a,
  );
  return { ...state, attempts, conflicts: upsert(state.conflicts, resolved) };
}

/** Who answered a hunk, for the log line of a resolved conflict: a rule by name, the policy or past merges with theirs. */
function hunkWho(rung: Rung | null, by: string | null): string {
  switch (rung) {
    case 'rule':
    case 'syntax':
      return by ?? rung;
    case 'policy':
    case 'learnt':
      return `${rung} (${by})`;
    case 'cache':
    case 'generated':
    case 'model':
    case 'person':
    case null:
      return String(rung);
    default:
      return unknownRung(rung);
  }
}
