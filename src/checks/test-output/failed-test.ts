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
