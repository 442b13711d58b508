import type { RunState } from '../store/run-state.js';
import { encodeRuns, MERGE_BLOCKED, MERGE_MANUAL, MERGE_UNKNOWN, mergeLetter } from './grid-codes.js';
import type { CellMark, GridView, Rung } from './model.js';
import { RUNGS } from '../store/rung.js';
import type { GridSnapshot } from './snapshot.js';
import { cellId } from '../imerge/cell.js';

const rungOrder: readonly Rung[] = RUNGS;

/** The most involved rung among resolved hunks: the latest in ladder order (a person, the model, ..., the cache). */
export function topRung(found: ReadonlyArray<Rung | null>): Rung | null {
  let best = -1;
  for (const r of found) if (r !== null) best = Math.max(best, rungOrder.indexOf(r));
  return best < 0 ? null : (rungOrder[best] as Rung);
}

/**
 * The grid of the report: the snapshot's cells when git still had them, otherwise a grid of
 * the run's size where only the edges, the blockers and the conflicts are known. Conflicts
 * and checked cells become marks.
 */
export function buildGridView(state: RunState, snapshot: GridSnapshot | null): GridView | null {
  if (snapshot === null && state.grid === null) return null;
  const len1 = snapshot?.len1 ?? (state.grid?.size.i1 ?? 0) + 1;
  const len2 = snapshot?.len2 ?? (state.grid?.size.i2 ?? 0) + 1;
  const letters = snapshot?.letters ?? sizeOnlyLetters(state, len1, len2);
  return {
    len1,
    len2,
    forkTip: snapshot?.forkTip ?? state.fork.branch,
    upstreamTip: snapshot?.upstreamTip ?? state.upstream.ref,
    cells: encodeRuns(letters),
    marks: buildMarks(state, len1, len2),
    forkAxis: snapshot?.forkAxis ?? [],
    upstreamAxis: snapshot?.upstreamAxis ?? [],
    source: snapshot?.source ?? 'size',
  };
}

function sizeOnlyLetters(state: RunState, len1: number, len2: number): string {
  const cells = new Array<string>(len1 * len2).fill(mergeLetter(MERGE_UNKNOWN));
  const set = (i: number, j: number, merge: number): void => {
    if (i < len1 && j < len2) cells[j * len1 + i] = mergeLetter(merge);
  };
  for (let i = 0; i < len1; i++) set(i, 0, MERGE_MANUAL);
  for (let j = 0; j < len2; j++) set(0, j, MERGE_MANUAL);
  for (const c of state.conflicts) if (c.resolutionCommit !== null) set(c.cell.i1, c.cell.i2, MERGE_MANUAL);
  for (const b of state.grid?.blockers ?? []) set(b.i1, b.i2, MERGE_BLOCKED);
  return cells.join('');
}

function buildMarks(state: RunState, len1: number, len2: number): CellMark[] {
  const marks = new Map<string, CellMark>();
  const mark = (i: number, j: number): CellMark | null => {
    if (i >= len1 || j >= len2) return null;
    const key = cellId({ i1: i, i2: j });
    let m = marks.get(key);
    if (m === undefined) {
      m = { i1: i, i2: j, conflict: null, status: null, rung: null, by: [], failedCheck: null, superseded: false };
      marks.set(key, m);
    }
    return m;
  };
  for (const c of state.conflicts) {
    const m = mark(c.cell.i1, c.cell.i2);
    if (m === null) continue;
    const hunks = c.files.flatMap((f) => f.hunks).filter((h) => h.status === 'resolved');
    m.conflict = c.id;
    m.status = c.status;
    m.rung =
      c.status === 'resolved'
        ? topRung([...hunks.map((h) => h.rung), ...c.files.map((f) => f.decidedBy ?? null)])
        : null;
    m.by = [...new Set(hunks.map((h) => h.by).filter((b): b is string => b !== null))];
  }
  const resolvedInOf = new Map(state.conflicts.map((c) => [c.id, c.resolvedInAttempt]));
  // Checks in order: a later pass on the same cell clears "failed now" but keeps the history.
  for (const check of state.checks) {
    if (check.cell === null) continue;
    const m = mark(check.cell.i1, check.cell.i2);
    if (m === null) continue;
    // A failure the baselines have (or cannot be told from theirs) is not this cell's: not marked X.
    const excused =
      check.judgement !== undefined &&
      check.judgement.verdict !== 'new_failures' &&
      check.judgement.verdict !== 'broken_by_merge';
    if (!check.success && !excused) {
      m.failedCheck = `${check.name} (attempt ${check.attempt})`;
      // A conflict resolved again in a later attempt no longer holds the resolution that failed.
      const resolvedIn = (m.conflict === null ? null : resolvedInOf.get(m.conflict)) ?? null;
      m.superseded = resolvedIn !== null && resolvedIn > check.attempt;
    } else if (m.failedCheck !== null) {
      m.superseded = true;
    }
  }
  return [...marks.values()]
    .filter((m) => m.conflict !== null || m.failedCheck !== null)
    .sort((a, b) => a.i2 - b.i2 || a.i1 - b.i1);
}
