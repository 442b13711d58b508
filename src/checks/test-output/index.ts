/**
 * Test runners' reports, read from a check's log: which tests failed, how many ran, whether the run stopped
 * early. One `TestOutputParser` record per runner, one file each (`vitest.ts`, `pytest.ts`, ...), listed in
 * `registry.ts`; JUnit XML files are read by `junit-xml.ts`. Compiler, linker and build-tool errors are not
 * read here but by the line matchers of `../log-errors/`, which `../extract-failure.ts` tries first.
 * @module
 */
import { readJUnitFailures, type JUnitSource } from './junit-xml.js';
import { logLines } from './lines.js';
import { testOutputParsers } from './registry.js';
import { stoppedEarly } from './stopped.js';
import type { TestFailures } from './types.js';

export * from './types.js';

export interface ParseTestOptions {
  /** The directory the check ran in: paths inside it are shown relative to it. */
  cwd?: string;
  /** JUnit XML reports the check wrote; when one can be read it is used instead of the log. */
  junit?: JUnitSource;
  /** The command that ran (a stop-at-first-failure flag on it, such as `mocha --bail`, means the run may have stopped early). */
  command?: string;
}

/**
 * The failing tests named in a check's output: the runner recognised and each failing test with a stable
 * identity, its message and `file:line`. `failures` is empty when the runner's report lists no failure
 * (a run that passed, or one that failed before or outside its tests). Null when no runner's output is
 * recognised: then only the whole check's outcome can be compared (see `sideOutcome`).
 */
export function parseTestFailures(log: string, options: ParseTestOptions = {}): TestFailures | null {
  const fromXml = options.junit ? readJUnitFailures(options.junit, options.cwd) : null;
  if (fromXml) return { runner: 'junit', ...fromXml, failed: fromXml.failures.length, stopped: null };
  const lines = logLines(log);
  let passing: TestFailures | null = null;
  for (const parser of testOutputParsers) {
    if (!parser.detect(lines)) continue;
    const failures = parser.parse(lines, options.cwd);
    const read = {
      runner: parser.name,
      failures,
      ran: parser.ran?.(lines) ?? null,
      failed: parser.failed?.(lines) ?? null,
      stopped: stoppedEarly(lines, parser, failures.length, options.command),
    };
    if (failures.length > 0) return read;
    passing ??= read;
  }
  return passing;
}
