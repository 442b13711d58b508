import type { FailedTest } from './failed-test.js';

/** The flag that makes a runner stop at its first failure, as it may appear on the command that ran it. */
interface StopFlag {
  /** The runner's program on a command line (a short flag counts only beside it). */
  program: RegExp;
  /** The long flag: it counts on the configured check command whatever program it names (a wrapper passes it on). */
  long: RegExp;
  short?: RegExp;
}

/**
 * One test runner's report, read from a check's log: one record per runner, one file each, listed once in
 * `registry.ts`. `detect` decides whether a log is this runner's; `parse` is called only when it is.
 */
export interface TestOutputParser<Name extends string = string> {
  /** Stable name stored in check results and shown in summaries. */
  name: Name;
  /** Whether the log's lines are this runner's output (a run that passed counts). */
  detect(lines: string[]): boolean;
  /** The failing tests the output lists, each with a stable identity; empty when none failed. */
  parse(lines: string[], cwd: string | undefined): FailedTest[];
  /**
   * How many tests ran (passed + failed, skipped not counted) by the runner's own summary, null when the
   * summary is missing. A runner with a counter always prints it, so a failed run without it died early;
   * leave it out for a runner that prints no count (go test).
   */
  ran?(lines: string[]): number | null;
  /**
   * How many tests failed by the runner's own summary (errors counted), null when it prints none: a count that
   * still compares sides whose failures could not be named one by one.
   */
  failed?(lines: string[]): number | null;
  /** Lines the runner prints when it stopped before running every test, and how to say why. */
  stopLines?: { pattern: RegExp; say(m: RegExpExecArray): string }[];
  stopFlag?: StopFlag;
}
