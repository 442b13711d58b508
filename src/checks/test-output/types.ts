import type { FailedTest } from './failed-test.js';
import type { TestRunner } from './registry.js';

export type { FailedTest } from './failed-test.js';
export { testRunners } from './registry.js';

/** What a check's output says about its tests: the runner recognised, and the tests that failed (none when all passed). */
export interface TestFailures {
  runner: TestRunner;
  failures: FailedTest[];
  /** How many tests ran (passed or failed) by the runner's own count; null when it gives none (go test). */
  ran: number | null;
  /** How many tests failed by the runner's own count; null or absent when it gives none (go test, older CI results). */
  failed?: number | null;
  /** Why the run stopped before running every test, as its own output says (stopped.ts); null when it did not. */
  stopped: string | null;
}
