import { excerptOf, jsFrames, oneLine, pickLocation } from './lines.js';
import type { FailedTest, TestOutputParser } from './types.js';

const PASSING = /^\s*\d+ passing \(\d+(?:\.\d+)?\s?(?:ms|s|m|h)\)\s*$/;
const FAILING = /^\s*\d+ failing\s*$/;

/**
 * Mocha's epilogue, which the spec (default), dot, list and other base reporters print alike:
 * `N passing (T)`, `N failing`, then a numbered block per failure: the title path one part per line
 * (the last ending with `:`), the message, an optional diff, and the stack. A hook's failure is named
 * as mocha names it (`"before all" hook for "..."`).
 */
export const parseMocha: TestOutputParser = (lines, cwd) => {
  const summary = lines.findIndex((l) => PASSING.test(l) || FAILING.test(l));
  if (summary < 0) return null;
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
};

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
