/**
 * Line patterns for the errors of compilers, linkers and build tools (gcc, clang, tsc, rustc, go build, ld,
 * ninja, make), plus loose single-line test failures for logs no test runner's report explains.
 * `../extract-failure.ts` keeps the lowest-ranked hit. A test runner's report (which tests failed, how many
 * ran) is read by a `TestOutputParser` in `../test-output/` instead: add a runner there, not here.
 * @module
 */
import { buildToolSummaries } from './build-tool.js';
import { compilerErrors } from './compiler.js';
import { linkerErrors } from './linker.js';
import type { LogErrorMatcher } from './matcher.js';
import { testFailureLines } from './test-lines.js';

export type { LogErrorHit, LogErrorMatcher } from './matcher.js';

/** Tried in this order on each line; the first that matches a line names its error. */
export const logErrorMatchers: readonly LogErrorMatcher[] = [
  ...compilerErrors,
  ...linkerErrors,
  ...testFailureLines,
  ...buildToolSummaries,
];
