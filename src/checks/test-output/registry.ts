import { cargoTest } from './cargo-test.js';
import { goTest } from './go-test.js';
import { jest } from './jest.js';
import { mocha } from './mocha.js';
import { nodeTest } from './node-test.js';
import type { TestOutputParser } from './parser.js';
import { pytest } from './pytest.js';
import { rspec } from './rspec.js';
import { vitest } from './vitest.js';

/**
 * Every runner whose log `parseTestFailures` reads, tried in this order: most specific first, since vitest's
 * and jest's `FAIL` lines differ only in detail and mocha's epilogue is the loosest.
 */
export const testOutputParsers = [vitest, jest, pytest, cargoTest, nodeTest, goTest, rspec, mocha] as const;

/** A runner's name as check results store it: a log parser's, or `junit` for JUnit XML reports. */
export type TestRunner = (typeof testOutputParsers)[number]['name'] | 'junit';

/** The test runners whose output `parseTestFailures` reads. */
export const testRunners: readonly TestRunner[] = [...testOutputParsers.map((p) => p.name), 'junit'];

/** The parser named `runner`; undefined for `junit`, which is read from files rather than the log. */
export function parserNamed(runner: TestRunner): TestOutputParser | undefined {
  return testOutputParsers.find((p) => p.name === runner);
}
