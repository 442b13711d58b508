import { excerptOf, isTestPath, oneLine, pickLocation, sumOf } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';

const SECTION = /^=+ (FAILURES|ERRORS) =+$/;
const SUMMARY = /^(FAILED|ERROR) (\S.*?)(?: - (.*))?$/;

/**
 * pytest: the `FAILURES` / `ERRORS` sections hold one `____ name ____` block per failure, whose `E   `
 * lines are the message and whose `path.py:line: Error` lines the location; the short summary
 * (`FAILED node-id - message`, on by default) gives each test's node id, which is its identity.
 */
function parsePytest(lines: string[], cwd: string | undefined): FailedTest[] {
  const summary = lines.map((l) => SUMMARY.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  const nodeIds = summary.map((m) => m[2] as string);
  const failures: FailedTest[] = [];
  let inSection = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    if (/^=+ .* =+$/.test(l)) inSection = SECTION.test(l);
    const head = inSection ? /^_{2,} (.+?) _{2,}$/.exec(l) : null;
    if (!head) continue;
    let end = i + 1;
    while (end < lines.length && !/^_{2,} .+ _{2,}$|^=+ /.test(lines[end] as string)) end++;
    failures.push(failureIn(lines, i, end, head[1] as string, nodeIds, cwd));
    i = end - 1;
  }
  // Without tracebacks (--tb=no) the summary alone names them.
  if (failures.length === 0) {
    for (const m of summary)
      failures.push({
        id: m[2] as string,
        title: lastPart(m[2] as string),
        message: oneLine([m[3] ?? `${(m[1] as string).toLowerCase()}`]),
        location: null,
        excerpt: m[0],
      });
  }
  return failures;
}

function failureIn(
  lines: string[],
  start: number,
  end: number,
  name: string,
  nodeIds: string[],
  cwd: string | undefined,
): FailedTest {
  const body = lines.slice(start + 1, end);
  const where = body.map((x) => /^(\S+?\.py):(\d+):(?:\s.*)?$/.exec(x)).filter((m): m is RegExpExecArray => m !== null);
  const location = pickLocation(
    where.map((m) => ({ path: m[1] as string, line: m[2] as string })),
    cwd,
  );
  // The last group of `E` lines is the error that ended the test; its first line the assertion.
  const groups: string[][] = [];
  body.forEach((x, j) => {
    if (!/^E\s/.test(x)) return;
    if (j === 0 || !/^E\s/.test(body[j - 1] as string)) groups.push([]);
    groups[groups.length - 1]?.push(x.replace(/^E\s+/, ''));
  });
  const id = nodeIdFor(
    name,
    nodeIds,
    where.map((m) => m[1] as string),
  );
  return {
    id,
    title: lastPart(id),
    message: oneLine([groups[groups.length - 1]?.[0] ?? 'failed']),
    location,
    excerpt: excerptOf(lines, start, end),
  };
}

/** The section's name (`Class.test_x`, `ERROR at setup of test_x`, `ERROR collecting f.py`) as a node id. */
function nodeIdFor(name: string, nodeIds: string[], paths: string[]): string {
  const bare = name.replace(/^ERROR (?:at (?:setup|teardown) of|collecting) /, '');
  const known = nodeIds.find((id) => id === bare || id.split('::').slice(1).join('.') === bare);
  if (known) return known;
  const file = paths.find(isTestPath);
  return file ? `${file}::${bare.split('.').join('::')}` : bare;
}

function lastPart(id: string): string {
  return id.split('::').pop() as string;
}

/** pytest's default terminal report. */
export const pytest: TestOutputParser<'pytest'> = {
  name: 'pytest',
  detect: (lines) =>
    lines.some(
      (l) =>
        /^=+ (test session starts|FAILURES|ERRORS|short test summary info) =+$/.test(l) ||
        /^=*\s*(?:\d+ (?:failed|passed|errors?|skipped)[, ]*)+.* in [\d.]+ ?s/.test(l),
    ),
  parse: parsePytest,
  ran: (lines) => {
    const line = lines.filter((l) => /\d+ (?:passed|failed).* in [\d.]+ ?s/.test(l)).at(-1);
    return line
      ? sumOf([/(\d+) passed/.exec(line)?.[1], /(\d+) failed/.exec(line)?.[1], /(\d+) errors?/.exec(line)?.[1]])
      : null;
  },
  failed: (lines) => {
    const line = lines.filter((l) => /\d+ (?:passed|failed|errors?).* in [\d.]+ ?s/.test(l)).at(-1);
    return line ? sumOf([/(\d+) failed/.exec(line)?.[1], /(\d+) errors?/.exec(line)?.[1]]) : null;
  },
  stopLines: [
    { pattern: /^!+ (stopping after \d+ failures?) !+$/, say: (m) => `pytest: ${m[1]} (-x or --maxfail)` },
    { pattern: /^!+ (Interrupted: .+?) !+$/, say: (m) => `pytest: ${m[1]}` },
    { pattern: /^!+ (KeyboardInterrupt) !+$/, say: (m) => `pytest: ${m[1]}` },
  ],
};
