const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g');
const MAX_MESSAGE = 300;
const MAX_EXCERPT_LINES = 20;

/** The log's lines without terminal colours or carriage returns. */
export function logLines(text: string): string[] {
  return text.replace(ANSI, '').split(/\r?\n/);
}

/** One line, bounded: the lines' trimmed, non-empty texts joined by spaces. */
export function oneLine(lines: string[]): string {
  const text = lines
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 3)}...` : text;
}

/** A failure's lines of the log, bounded, without the blank lines around them. */
export function excerptOf(lines: string[], from: number, to: number): string {
  const excerpt = lines.slice(from, Math.min(to, from + MAX_EXCERPT_LINES));
  while (excerpt.length > 0 && !excerpt[excerpt.length - 1]?.trim()) excerpt.pop();
  return excerpt.join('\n');
}

/** A path as the reader knows it: relative to `cwd` when it lies inside it, without `file://` or `./`. */
export function displayPath(path: string, cwd: string | undefined): string {
  let p = path.replace(/^file:\/\//, '');
  if (cwd && p.startsWith(`${cwd.replace(/\/$/, '')}/`)) p = p.slice(cwd.replace(/\/$/, '').length + 1);
  return p.replace(/^\.\//, '');
}

/** Looks like a test file (where a failure's line is most telling): `test/`, `spec/`, `*.test.js`, `_test.go`, `test_*.py`, `*_spec.rb`. */
export function isTestPath(path: string): boolean {
  return (
    /(^|\/)(tests?|spec|__tests__)\//.test(path) ||
    /[._-](test|spec)\.[cm]?[jt]sx?$/.test(path) ||
    /_test\.go$|(^|\/)test_[^/]*\.py$|_test\.py$|_spec\.rb$/.test(path)
  );
}

/**
 * The most telling `file:line` among candidate paths with lines, in order of appearance:
 * the first in a test file, else the first one at all. Dependencies and runtime internals are skipped.
 */
export function pickLocation(candidates: { path: string; line: string }[], cwd: string | undefined): string | null {
  const own = candidates
    .map((c) => ({ path: displayPath(c.path, cwd), line: c.line }))
    .filter(
      (c) =>
        !/(^|\/)node_modules\/|^node:|^internal\/|<anonymous>|\/usr\/(local\/)?lib\/go[^/]*\/|\/rustc\/|(^|\/)library\/(std|core)\//.test(
          c.path,
        ),
    );
  const best = own.find((c) => isTestPath(c.path)) ?? own[0];
  return best ? `${best.path}:${best.line}` : null;
}

/** `file:line` candidates in JavaScript stack frames (`at fn (file:line:col)`, `at file:line:col`) and vitest's `❯ file:line:col`. */
export function jsFrames(lines: string[]): { path: string; line: string }[] {
  const out: { path: string; line: string }[] = [];
  for (const l of lines) {
    const m = /^\s*(?:at\s+(?:.*?\()?|❯\s+)((?:file:\/\/)?[^\s()]+?):(\d+):\d+\)?\s*$/.exec(l);
    if (m) out.push({ path: m[1] as string, line: m[2] as string });
  }
  return out;
}

/** Keep the first failure of each id (some runners print a summary of the same failures again). */
export function uniqueById<T extends { id: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((t) => !seen.has(t.id) && seen.add(t.id));
}

/** The sum of the numbers a summary's patterns captured (a missing one counts as 0). */
export const sumOf = (values: (string | undefined)[]): number => values.reduce((n, v) => n + Number(v ?? 0), 0);

/**
 * A count on the runner's summary line (`summary`): what `count` captures there, 0 when the line has no such
 * part (`Tests: 4 passed` counts no failure), null when there is no summary line.
 */
export function countOnSummary(lines: string[], summary: RegExp, count: RegExp): number | null {
  const line = lines.filter((l) => summary.test(l)).at(-1);
  if (line === undefined) return null;
  return Number(count.exec(line)?.[1] ?? 0);
}

/** The sum of what each pattern captures on its first matching line; null when none of them matches. */
export function summaryTotal(lines: string[], patterns: RegExp[]): number | null {
  const found = patterns.map((p) => lines.map((l) => p.exec(l)?.[1]).find((v) => v !== undefined));
  return found.every((v) => v === undefined) ? null : sumOf(found);
}
