import { excerptOf, jsFrames, oneLine, pickLocation, summaryTotal } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';

const PASSING = /^\s*\d+ passing \(\d+(?:\.\d+)?\s?(?:ms|s|m|h)\)\s*$/;
const FAILING = /^\s*\d+ failing\s*$/;

/**
 * Mocha's epilogue, which the spec (default), dot, list and other base reporters print alike:
 * `N passing (T)`, `N failing`, then a numbered block per failure: its title, the message, an optional diff,
 * and the stack. Mocha 4 and later print the title path one part per line (the last ending with `:`);
 * mocha 1 to 3 print the full title on one line, and two spaces after the number for a test at the root
 * (`  1)  Uncaught error outside test suite:`), since their full title starts with the root's empty one.
 * A hook's failure is named as mocha names it (`"before all" hook for "..."`).
 */
function parseMocha(lines: string[], cwd: string | undefined): FailedTest[] {
  const summary = lines.findIndex((l) => PASSING.test(l) || FAILING.test(l));
  const failing = lines.findIndex((l, i) => i >= summary && FAILING.test(l));
  if (failing < 0) return [];
  const starts: { start: number; titleEnd: number }[] = [];
  for (let i = failing + 1, next = 1; i < lines.length; i++) {
    if (!new RegExp(`^\\s*${next}\\)\\s+\\S`).test(lines[i] as string)) continue;
    // The spec reporter's own list numbers failures too (`  2) parses numbers`), without the colon that ends an
    // epilogue title: mocha 10 prints that list after the epilogue when an error outside any test ended the run.
    const titleEnd = endOfTitle(lines, i);
    if (titleEnd < 0) continue;
    starts.push({ start: i, titleEnd });
    next++;
  }
  return starts.map((s, k) => failure(lines, s.start, s.titleEnd, starts[k + 1]?.start ?? lines.length, cwd));
}

/** The line that ends a failure's title (with `:`), within a few lines and before a blank one; -1 when none does. */
function endOfTitle(lines: string[], start: number): number {
  for (let i = start; i < lines.length && i - start <= 12; i++) {
    const line = lines[i] as string;
    if (line.trim() === '' || (i > start && /^\s*(?:\d+\)|[✓✔])\s/.test(line))) return -1;
    if (line.trimEnd().endsWith(':')) return i;
  }
  return -1;
}

function failure(lines: string[], start: number, titleEnd: number, end: number, cwd: string | undefined): FailedTest {
  const parts = lines
    .slice(start, titleEnd + 1)
    .map((l, k) => (k === 0 ? l.replace(/^\s*\d+\)\s+/, '') : l).trim())
    .filter(Boolean);
  parts[parts.length - 1] = (parts[parts.length - 1] as string).replace(/:$/, '');
  const title = parts;
  const body = lines.slice(titleEnd + 1, end);
  const from = body.findIndex((l) => l.trim() !== '');
  const stop = body.findIndex(
    (l, j) => j > from && (/^\s*at\s/.test(l) || /^\s*\+ expected - actual\s*$/.test(l) || /^\s*-{4}\s*$/.test(l)),
  );
  // A hook is named after the first test it ran for, which changes when tests are added: leave that out of its id.
  const id = [
    ...title.slice(0, -1),
    (title[title.length - 1] ?? '').replace(
      /^((?:.* )?"(?:before|after) (?:all|each)" hook)(?::? .*?)? (?:for|in) ".*"$/,
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
  failed: (lines) => summaryTotal(lines, [/^\s*(\d+) failing\s*$/]) ?? (lines.some((l) => PASSING.test(l)) ? 0 : null),
  stopFlag: { program: /\bmocha\b/, long: /(?:^|\s)(--bail)(?=\s|$)/, short: /(?:^|\s)(-b)(?=\s|$)/ },
};
