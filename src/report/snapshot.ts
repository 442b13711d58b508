import type { RunEvent } from '../store/run-events.js';
import type { RunState } from '../store/run-state.js';
import type { CommitRef, ConflictHunkView } from './model.js';

/**
 * What a report is built from, gathered by `load-run.ts` (the only part that reads the
 * repository) and turned into a ReportModel by the pure `buildReportModel`.
 */
export interface RunSnapshot {
  state: RunState;
  events: RunEvent[];
  grid: GridSnapshot | null;
  /** Git-derived details by conflict id (missing: not looked up). */
  conflicts: Record<string, ConflictGitDetails>;
  /** The end of each check's log, by check index (missing: log gone or not read). */
  logTails: Record<number, string>;
  /** A live process holds the run's lock. */
  live: boolean;
}

/** The grid as read from the refs, or rebuilt from the merge commits left in history. */
export interface GridSnapshot {
  len1: number;
  len2: number;
  forkTip: string;
  upstreamTip: string;
  /** One letter per cell (grid-codes.ts), rows of len1 letters (j outer), not run-length encoded. */
  letters: string;
  forkAxis: CommitRef[];
  upstreamAxis: CommitRef[];
  source: 'refs' | 'history';
}

export interface ConflictGitDetails {
  /** The conflicted text's hunks per path, from merging the two parent cells again. */
  hunks: Record<string, ConflictHunkView[]>;
  /** Unified diff from the conflicted tree (markers and all) to the recorded resolution. */
  diff: string | null;
  diffTruncated: boolean;
  note: string | null;
}
