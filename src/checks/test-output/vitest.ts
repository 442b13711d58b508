import { countOnSummary, excerptOf, jsFrames, oneLine, pickLocation, summaryTotal, uniqueById } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';

const SEPARATOR = /^\s*⎯{3,}/;

/**
 * Vitest's default reporter: after `⎯⎯ Failed Tests N ⎯⎯`, each failure is ` FAIL  file > suite > test`
 * (several such lines share one error when it is the same), then the error, a diff, ` ❯ file:line:col`
 * and a code frame, up to a `⎯⎯⎯` line. A file that failed to load is ` FAIL  file [ file ]`.
 * Identity: `file > suite > test`, without the project's `|name|` label.
 */
function parseVitest(lines: string[], cwd: string | undefined): FailedTest[] {
  const failures: FailedTest[] = [];
  for (let i = 0; i < lines.length; i++) {
    const names: string[] = [];
    const start = i;
    for (let m = header(lines[i]); m; m = header(lines[++i])) names.push(m);
    if (names.length === 0) continue;
    let end = i;
    while (end < lines.length && !SEPARATOR.test(lines[end] as string) && !header(lines[end])) end++;
    const body = lines.slice(i, end);
    const from = body.findIndex((x) => x.trim() !== '');
    const stop = body.findIndex((x, j) => j > from && (x.trim() === '' || /^\s*❯ |^\s*at\s/.test(x)));
    const message = oneLine(body.slice(Math.max(0, from), stop < 0 ? body.length : stop));
    const location = pickLocation(jsFrames(body), cwd);
    for (const name of names) {
      const parts = name.split(' > ');
      failures.push({
        id: name,
        title: parts[parts.length - 1] as string,
        message,
        location,
        excerpt: excerptOf(lines, start, end),
      });
    }
    i = end - 1;
  }
  return uniqueById(failures);
}

function header(line: string | undefined): string | null {
  // The project's label is `|name|` without colours, and ` name ` on a coloured background (so: two spaces after it) with them.
  const m = /^\s*FAIL\s+(?:\|[^|]+\|\s+|[^\s>]+\s{2,}(?=\S))?(\S.*?)\s*$/.exec(line ?? '');
  if (!m) return null;
  const name = (m[1] as string).replace(/\s+\[ .+ \]$/, '');
  return / > /.test(name) || /\[ .+ \]$/.test(m[1] as string) ? name : null;
}

/** Vitest's default reporter, in colour or not. */
export const vitest: TestOutputParser<'vitest'> = {
  name: 'vitest',
  detect: (lines) => lines.some((l) => /^\s*Test Files\s+\d+/.test(l) || /⎯ Failed (?:Tests|Suites) \d+ ⎯/.test(l)),
  parse: parseVitest,
  ran: (lines) => summaryTotal(lines, [/^\s*Tests\s.*?(\d+) passed/, /^\s*Tests\s.*?(\d+) failed/]),
  failed: (lines) => countOnSummary(lines, /^\s*Tests\s+(?:no tests|\d+ )/, /(\d+) failed/),
  stopFlag: { program: /\bvitest\b/, long: /(?:^|\s)(--bail(?:=\d+)?)(?=\s|$)/ },
};
