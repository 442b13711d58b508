import { parseTestFailures, type FailedTest, type ParseTestOptions, type TestFailures } from './test-output/index.js';
import { logErrorMatchers, type LogErrorHit } from './log-errors/index.js';
import type { FailureSummary } from './types.js';

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const strip = (s: string): string => s.replace(ANSI, '');

const EXCERPT_LINES = 20;

export interface ExtractOptions extends ParseTestOptions {
  timedOut?: boolean;
  /**
   * The ids of the tests blamed on the resolutions (checks/baseline.ts): the summary names the first of
   * them and lists them all; the other failing tests are listed as failing on a baseline too.
   */
  blamed?: string[];
}

/**
 * The first real error in a check's log: compile, link, test failure or timeout,
 * with `file:line` and a bounded excerpt. Failing tests are named from the test
 * runner's own report (a parser of `test-output/registry.ts`, or JUnit XML): the
 * test, its assertion and its `file:line`. A compile or link error
 * comes first (the tests did not build); tool summaries (make's `***`, ninja's
 * `FAILED:`) are used only when nothing else is recognised. Null when nothing in
 * the log looks like an error.
 */
export function extractFailure(logText: string, options: ExtractOptions = {}): FailureSummary | null {
  const lines = logText.split(/\r?\n/).map(strip);
  if (options.timedOut) {
    const last = lines.filter(Boolean).slice(-EXCERPT_LINES).join('\n');
    return {
      error_type: 'timeout',
      location: null,
      root_cause: 'the check did not finish within check.timeout and was killed',
      excerpt: last,
    };
  }
  let best: (LogErrorHit & { line: number }) | null = null;
  for (let i = 0; i < lines.length; i++) {
    for (const match of logErrorMatchers) {
      const hit = match(lines, i);
      if (hit && (best === null || hit.rank < best.rank)) best = { ...hit, line: i };
      if (hit) break;
    }
    if (best && best.rank === 0) break;
  }
  if (!best || best.rank > 1) {
    const tests = parseTestFailures(logText, options);
    if (tests && tests.failures.length > 0) return testSummary(tests, options.blamed);
  }
  if (!best) return null;
  const from = Math.max(0, best.line - 2);
  return {
    error_type: best.type,
    location: best.location,
    root_cause: clip(best.cause),
    excerpt: lines
      .slice(from, from + EXCERPT_LINES)
      .join('\n')
      .trimEnd(),
  };
}

/**
 * `"test title" — message`, at the failing test's `file:line`; the other failing tests are named after the
 * excerpt. With `blamed`, the first blamed test leads and the others are split into blamed and not blamed.
 */
function testSummary(tests: TestFailures, blamed?: string[]): FailureSummary {
  const isBlamed = (t: FailedTest): boolean => blamed === undefined || blamed.includes(t.id);
  const ordered = [...tests.failures.filter(isBlamed), ...tests.failures.filter((t) => !isBlamed(t))];
  const [first, ...others] = ordered as [FailedTest, ...FailedTest[]];
  const more = others.length > 0 ? ` (and ${others.length} more failing test${others.length === 1 ? '' : 's'})` : '';
  const listed = (list: FailedTest[]): string[] => [
    ...list.slice(0, 10).map((t) => `  ${t.id}${t.location ? ` (${t.location})` : ''}: ${t.message}`),
    ...(list.length > 10 ? [`  ... ${list.length - 10} more`] : []),
  ];
  const sections: string[] = [];
  if (blamed === undefined) {
    if (others.length > 0) sections.push('', `Also failing (${tests.runner}):`, ...listed(others));
  } else {
    const guilty = ordered.filter(isBlamed);
    const inherited = ordered.filter((t) => !isBlamed(t));
    if (guilty.length > 0)
      sections.push(
        '',
        `Blamed on the resolutions, failing on no baseline (${tests.runner}, ${guilty.length}):`,
        ...listed(guilty),
      );
    if (inherited.length > 0)
      sections.push('', `Failing on a tip too, not blamed (${inherited.length}):`, ...listed(inherited));
  }
  return {
    error_type: 'test_failure',
    location: first.location ?? first.id,
    root_cause: clip(`${first.title.includes('"') ? first.title : `"${first.title}"`} — ${first.message}${more}`),
    excerpt: [first.excerpt, ...sections].join('\n'),
  };
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
