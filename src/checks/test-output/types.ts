/** The test runners whose output `parseTestFailures` reads. */
export const testRunners = ['mocha', 'jest', 'vitest', 'pytest', 'go', 'cargo', 'rspec', 'junit'] as const;
export type TestRunner = (typeof testRunners)[number];

/** One failing test, as read from a check's output. Plain data: the workflow stores it as JSON. */
export interface FailedTest {
  /**
   * The test's identity, stable across commits (no line numbers, durations or process ids), so that
   * the same test failing on a tip and on the merge compares equal: `suite > test` (mocha, jest, vitest,
   * rspec, JUnit) or `file::test` (pytest's node id, `package::TestName/subtest` for go, `target::path`
   * for cargo).
   */
  id: string;
  /** The test's own title, the last part of `id`. */
  title: string;
  /** The assertion or error message, on one line (bounded). */
  message: string;
  /** `file:line` where the output gives one (a test file's line is preferred), else null. */
  location: string | null;
  /** The failure's own lines of the log (bounded). */
  excerpt: string;
}

/** What a check's output says about its tests: the runner recognised, and the tests that failed (none when all passed). */
export interface TestFailures {
  runner: TestRunner;
  failures: FailedTest[];
  /** How many tests ran (passed or failed) by the runner's own count; null when it gives none (go test). */
  ran: number | null;
  /** Why the run stopped before running every test, as its own output says (stopped.ts); null when it did not. */
  stopped: string | null;
}

/** A parser for one runner: null when the output is not that runner's, else the failures it lists (maybe none). */
export type TestOutputParser = (lines: string[], cwd: string | undefined) => FailedTest[] | null;
