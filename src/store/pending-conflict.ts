import type { ConflictState } from './run-state.js';

/** A conflict as first recorded: pending, no files, no resolution, no attempt, no blame. */
export function pendingConflict(id: string, cell: { i1: number; i2: number }): ConflictState {
  return {
    id,
    cell,
    files: [],
    status: 'pending',
    resolutionTree: null,
    resolutionCommit: null,
    attempts: 0,
    resolvedInAttempt: null,
    blame: null,
  };
}
