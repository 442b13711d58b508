import type { FailureType } from '../types.js';

/** An error found on one line of a check's log. */
export interface LogErrorHit {
  type: FailureType;
  location: string | null;
  cause: string;
  /** Lower = more fundamental (a compiler error beats the make line reporting it). */
  rank: number;
}

/** Looks at line `i` (and may peek at its neighbours); null when the line is not this tool's error. */
export type LogErrorMatcher = (lines: string[], i: number) => LogErrorHit | null;
