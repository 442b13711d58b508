import { parseCargoTest } from './cargo-test.js';
import { parseGoTest } from './go-test.js';
import { parseJest } from './jest.js';
import { readJUnitFailures, type JUnitSource } from './junit-xml.js';
import { logLines } from './lines.js';
import { parseMocha } from './mocha.js';
import { parsePytest } from './pytest.js';
import { parseRspec } from './rspec.js';
import { stoppedEarly } from './stopped.js';
import { testsRun } from './tests-run.js';
import type { TestFailures, TestOutputParser, TestRunner } from './types.js';
import { parseVitest } from './vitest.js';

export * from './types.js';
export type { JUnitSource } from './junit-xml.js';
export { diedBeforeSummary } from './stopped.js';

/** Most specific first: vitest's and jest's `FAIL` lines differ only in detail, mocha's epilogue is the loosest. */
const parsers: [TestRunner, TestOutputParser][] = [
  ['vitest', parseVitest],
  ['jest', parseJest],
  ['pytest', parsePytest],
  ['cargo', parseCargoTest],
  ['go', parseGoTest],
  ['rspec', parseRspec],
  ['mocha', parseMocha],
];

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
  if (fromXml) return { runner: 'junit', ...fromXml, stopped: null };
  const lines = logLines(log);
  let passing: TestFailures | null = null;
  for (const [runner, parse] of parsers) {
    const failures = parse(lines, options.cwd);
    if (!failures) continue;
    const read = {
      runner,
      failures,
      ran: testsRun(lines, runner),
      stopped: stoppedEarly(lines, runner, failures.length, options.command),
    };
    if (failures.length > 0) return read;
    passing ??= read;
  }
  return passing;
}
