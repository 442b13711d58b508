import { excerptOf, jsFrames, oneLine, pickLocation, summaryTotal } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';

const PASSING = /^\s*\d+ passing \(\d+(?:\.\d+)?\s?(?:ms|s|m|h)\)\s*$/;
const FAILING = /^\s*\d+ failing\s*$/;

/**
 * Mocha's epilogue, which the spec (default), dot, list and other base reporters print alike:
 * `N passing (T)`, `N failing`, then a numbered block per failure: the title path one part per line
 * (the last ending with `:`), the message, an optional diff, and the stack. A hook's failure is named
 * as mocha names it (`"before all" hook for "..."`).
 */
function parseMocha(lines: string[], cwd: string | undefined): FailedTest[] {
  const summary = lines.findIndex((l) => PASSING.test(l) || FAILING.test(l));
  const failing = lines.findIndex((l, i) => i >= summary && FAILING.test(l));
  if (failing < 0) return [];
  const starts: number[] = [];
  for (let i = failing + 1, next = 1; i < lines.length; i++) {
    if (new RegExp(`^\\s*${next}\\) \\S`).test(lines[i] as string)) {
      starts.push(i);
      next++;
    }
  }
  return starts.map((start, k) => failure(lines, start, starts[k + 1] ?? lines.length, cwd));
}

function failure(lines: string[], start: number, end: number, cwd: string | undefined): FailedTest {
  const parts = [(lines[start] as string).replace(/^\s*\d+\) /, '').trim()];
  let i = start;
  while (!(parts[parts.length - 1] as string).endsWith(':') && i + 1 < end && i - start < 12)
    parts.push((lines[++i] as string).trim());
  parts[parts.length - 1] = (parts[parts.length - 1] as string).replace(/:$/, '');
  const title = parts.filter(Boolean);
  const body = lines.slice(i + 1, end);
  const from = body.findIndex((l) => l.trim() !== '');
  const stop = body.findIndex(
    (l, j) => j > from && (/^\s*at\s/.test(l) || /^\s*\+ expected - actual\s*$/.test(l) || /^\s*-{4}\s*$/.test(l)),
  );
  // A hook is named after the first test it ran for, which changes when tests are added: leave that out of its id.
  const id = [
    ...title.slice(0, -1),
    (title[title.length - 1] ?? '').replace(
      /^("(?:before|after) (?:all|each)" hook)(?::? .*?)? (?:for|in) ".*"$/,
      '$1',
    ),
  ];
  return {
    id: id.join(' > '),
    title: title[title.length - 1] ?? '',
    message: oneLine(body.slice(Math.max(0, from), stop < 0 ? body.length : stop)),
    location: pickLocation(jsFrames(body), cwd),
    excerpt: excerptOf(lines, start, end),
  };
}

/** Mocha's epilogue, which every base reporter prints. */
export const mocha: TestOutputParser<'mocha'> = {
  name: 'mocha',
  detect: (lines) => lines.some((l) => PASSING.test(l) || FAILING.test(l)),
  parse: parseMocha,
  ran: (lines) => summaryTotal(lines, [/^\s*(\d+) passing \(/, /^\s*(\d+) failing\s*$/]),
  stopFlag: { program: /\bmocha\b/, long: /(?:^|\s)(--bail)(?=\s|$)/, short: /(?:^|\s)(-b)(?=\s|$)/ },
};
