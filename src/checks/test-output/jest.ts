import { countOnSummary, excerptOf, jsFrames, oneLine, pickLocation, summaryTotal, uniqueById } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';

/**
 * Jest's default reporter: `FAIL path` opens a test file's report, then one `● suite › test` block per
 * failure: the message (the matcher line, then Expected/Received), a code frame, and `at` frames.
 * `● Test suite failed to run` (the file did not load) is a failure of the file. Identity: `file > suite > test`.
 */
function parseJest(lines: string[], cwd: string | undefined): FailedTest[] {
  const failures: FailedTest[] = [];
  let file = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const opened = /^\s*(?:FAIL|PASS)\s+(\S+)/.exec(l);
    if (opened && !/ > /.test(l)) file = opened[1] as string;
    const head = /^\s*● (.+)$/.exec(l);
    if (!head || /^Console\s*$/.test(head[1] as string)) continue;
    let end = i + 1;
    while (
      end < lines.length &&
      !/^\s*● |^\s*(?:FAIL|PASS)\s+\S|^Test Suites:|^Summary of all failing tests/.test(lines[end] as string)
    )
      end++;
    const parts = (head[1] as string).split(' › ').map((p) => p.trim());
    const body = lines.slice(i + 1, end);
    const from = body.findIndex((x) => x.trim() !== '');
    const stop = body.findIndex((x, j) => j > from && (/^\s*>?\s*\d+ \|/.test(x) || /^\s*at\s/.test(x)));
    failures.push({
      id: [file, ...parts].filter(Boolean).join(' > '),
      title: parts[parts.length - 1] as string,
      message: oneLine(body.slice(Math.max(0, from), stop < 0 ? body.length : stop)),
      location: pickLocation(jsFrames(body), cwd),
      excerpt: excerptOf(lines, i, end),
    });
    i = end - 1;
  }
  return uniqueById(failures);
}

/** Jest's default reporter. */
export const jest: TestOutputParser<'jest'> = {
  name: 'jest',
  detect: (lines) =>
    lines.some((l) => /^Tests:\s+.*\btotal\s*$/.test(l)) ||
    lines.some((l) => /^\s*(?:FAIL|PASS)\s+\S+\s*(?:\([\d.]+ m?s\))?\s*$/.test(l)),
  parse: parseJest,
  ran: (lines) => summaryTotal(lines, [/^Tests:.*?(\d+) passed/, /^Tests:.*?(\d+) failed/]),
  failed: (lines) => countOnSummary(lines, /^Tests:.*\btotal\s*$/, /(\d+) failed/),
  stopFlag: { program: /\bjest\b/, long: /(?:^|\s)(--bail(?:=\d+)?)(?=\s|$)/, short: /(?:^|\s)(-b)(?=\s|$)/ },
};
