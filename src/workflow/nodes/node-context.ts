import type { RunEvent, RunEventInput } from '../../store/run-events.js';

/** The journal, as the machine and nodes use it. */
export interface EventSink {
  append(event: RunEventInput): unknown;
  /** Every complete event so far (used by `once`). */
  read(): { entries: RunEvent[] };
}

/** What the machine adds to the run's dependencies for one step (`driveRun` in merge-run.ts). */
export interface NodeContext {
  signal: AbortSignal;
  /**
   * Aborted when this drive ends (or `signal` aborts): work a node starts without waiting for it
   * (a check run alongside the next nodes) stops waiting there, and a later drive takes it up.
   */
  aside: AbortSignal;
  /** The step number of this node run (0-based, across resumes). */
  step: number;
  journal: EventSink;
  /**
   * Run `fn` at most once per `key` across kills and resumes: its JSON result is journalled
   * and a replay returns the recorded value without calling `fn` (model calls, expensive merges).
   * A call while the same key is still running waits for that run; a run that fails is not recorded.
   */
  once<T>(key: string, fn: () => Promise<T>): Promise<T>;
}
