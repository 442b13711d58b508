import type { RunState } from '../run-state.js';
import type { NewRecord } from './record.js';

/**
 * The records of a run's state, as `RunSync.add` takes them: each resolution (its conflict and
 * tree, who resolved each hunk), each check run (its check, commit and time), each accepted
 * failure, and the cells merged that the caller passes (the engine's recorded merges). Adding them
 * again after more work adds only what is new: equal facts have equal ids.
 */
export function runRecords(state: RunState, cells: Array<{ cell: string; commit: string }> = []): NewRecord[] {
  const records: NewRecord[] = cells.map((c) => ({ kind: 'cell', key: { cell: c.cell, commit: c.commit } }));
  for (const c of state.conflicts) {
    if (c.resolutionTree === null) continue;
    records.push({
      kind: 'resolution',
      key: { conflict: c.id, tree: c.resolutionTree },
      body: {
        commit: c.resolutionCommit,
        attempt: c.resolvedInAttempt,
        files: c.files.map((f) => ({
          path: f.path,
          kind: f.kind,
          decidedBy: f.decidedBy ?? null,
          hunks: f.hunks.map((h) => ({ index: h.index, rung: h.rung, by: h.by })),
        })),
      },
    });
  }
  for (const check of state.checks) {
    records.push({
      kind: 'check',
      key: { check: check.name, commit: check.commit, target: check.target, at: check.at },
      body: {
        cell: check.cell === null ? null : `${check.cell.i1}-${check.cell.i2}`,
        success: check.success,
        exitCode: check.exitCode,
        timedOut: check.timedOut,
        durationMs: check.durationMs,
        failing: check.outcome?.failing ?? null,
      },
    });
  }
  for (const a of state.acceptedFailures) {
    records.push({
      kind: 'accepted-failure',
      key: { check: a.check, conflicts: a.conflicts, failing: a.outcome.failing },
      body: { passed: a.outcome.passed, at: a.at },
    });
  }
  return records;
}
