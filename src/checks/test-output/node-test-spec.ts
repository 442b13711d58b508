import { displayPath, excerptOf, oneLine, pickLocation, jsFrames } from './lines.js';
import type { FailedTest } from './failed-test.js';

/** A test's line: `✔ name (1.2ms)`, `✖ name (1.2ms)`, `﹣ name (0.1ms) # SKIP`, `✔ name (0.1ms) # TODO`. */
const RESULT = /^( *)([✔✖﹣]) (.*?)(?: \(\d[\d.]*m?s\))?( # (?:SKIP|TODO)\b.*)?$/;
/** A suite opening (`▶ name`, its tests indented two spaces under it); with a duration, a suite closing (Node 22). */
const SUITE = /^( *)▶ (.*?)(?: \(\d[\d.]*m?s\))?$/;
/** The section Node prints after its counts (Node 20.x and later): every failure again, with where it is declared. */
const FAILING = /^✖ failing tests:$/;
const DECLARED = /^test at (\S+):(\d+):\d+$/;

/** `node --test` with the spec reporter (its default on a terminal on Node 20, everywhere on Node 22 and later). */
export function isNodeSpec(lines: string[]): boolean {
  return lines.some((l) => /^ℹ tests \d+$/.test(l)) && lines.some((l) => RESULT.test(l) || SUITE.test(l));
}

interface Body {
  lines: string[];
  /** The index of its last line (the result's own line when it has none). */
  end: number;
}

/** The error printed under a result at `indent`: the lines indented deeper, blank lines within, until the next result. */
function bodyOf(lines: string[], at: number, indent: number): Body {
  let end = at;
  for (let j = at + 1; j < lines.length; j++) {
    const line = lines[j] as string;
    if (line.trim() === '') continue;
    if (line.search(/\S/) <= indent || FAILING.test(line)) break;
    end = j;
  }
  const deeper = indent + 2;
  return { lines: lines.slice(at + 1, end + 1).map((l) => l.slice(Math.min(deeper, l.search(/\S|$/)))), end };
}

/** A failure the summary section prints again: its name, where it is declared, and its error (on Node 22 only there). */
interface Listed {
  name: string;
  declared: { path: string; line: string } | null;
  body: Body;
  at: number;
}

function listedFailures(lines: string[], from: number): Listed[] {
  const out: Listed[] = [];
  let declared: Listed['declared'] = null;
  for (let i = from + 1; i < lines.length; i++) {
    const d = DECLARED.exec(lines[i] as string);
    if (d) {
      declared = { path: d[1] as string, line: d[2] as string };
      continue;
    }
    const r = RESULT.exec(lines[i] as string);
    if (!r || r[1] !== '' || r[2] !== '✖') continue;
    const body = bodyOf(lines, i, 0);
    out.push({ name: r[3] as string, declared, body, at: i });
    declared = null;
    i = body.end;
  }
  return out;
}

/** `Name: message` from an error's lines: up to its stack, the error's code dropped (`AssertionError [ERR_ASSERTION]`). */
function messageOf(body: string[]): string {
  const head = body.findIndex((l) => l.trim() !== '');
  if (head < 0) return 'failed';
  const until = body.findIndex((l, k) => k > head && /^\s+at /.test(l));
  const text = body.slice(head, until < 0 ? body.length : until);
  text[0] = (text[0] as string).replace(/^(\w*(?:Error|Exception)\w*) \[[\w ]+\]:/, '$1:');
  return oneLine(text.map((l) => l.replace(/^'(.*)'$/, '$1'))) || 'failed';
}

/** A test file run as a whole is named by its path: shown relative to the check's directory, as in other runners. */
const isFile = (name: string): boolean => /^(?:file:\/\/)?\//.test(name);

/**
 * A test file that failed outside any test (it did not load) is reported with only `test failed`; the error
 * is in the file's own output, printed before it (TAP's `# ` lines): its first `Error:` line and the
 * `file:line` above the code frame.
 */
function fileError(said: string[], cwd: string | undefined): { message: string; location: string | null } | null {
  const error = said.find((l) => /^\w*(?:Error|Exception)\b.*?:/.test(l));
  if (!error) return null;
  const at = said.map((l) => /^((?:file:\/\/)?\/\S+?):(\d+)$/.exec(l)).find(Boolean);
  return {
    message: oneLine([error]),
    location: at ? pickLocation([{ path: at[1] as string, line: at[2] as string }], cwd) : null,
  };
}

/**
 * A failing test of either report, named by the suites it is under (`suite > test`). A test file that
 * failed as a whole gives the error its output printed before the result (`said`) over the result's own.
 */
export function failedTest(
  path: string[],
  cwd: string | undefined,
  said: string[],
  found: { message: string; location: string | null; excerpt: string },
): FailedTest {
  const names = path.map((n) => (isFile(n) ? displayPath(n, cwd) : n));
  const file = path.length === 1 && isFile(path[0] as string) ? fileError(said, cwd) : null;
  return {
    id: names.join(' > '),
    title: names[names.length - 1] as string,
    message: file?.message ?? found.message,
    location: file?.location ?? found.location,
    excerpt: found.excerpt,
  };
}

/**
 * The failing tests of a spec report: each `✖` line in the tree, named by the suites it is indented
 * under (`suite > test`), a suite's own closing line left out unless an error of its own (a failing
 * hook) is printed under it; a `# TODO` test never counts. Node 22 prints the error only in the
 * `✖ failing tests:` section after the counts, Node 20 under the test as well: that section
 * gives each failure its error where the tree has none and where it is declared, and is never
 * counted itself.
 */
export function parseNodeSpec(lines: string[], cwd: string | undefined): FailedTest[] {
  const summary = lines.findIndex((l) => FAILING.test(l));
  const tree = summary < 0 ? lines.length : summary;
  const listed = summary < 0 ? [] : listedFailures(lines, summary);
  const suites: Array<{ name: string; indent: number }> = [];
  const failures: FailedTest[] = [];
  let said: string[] = [];
  for (let i = 0; i < tree; i++) {
    const line = lines[i] as string;
    const opened = SUITE.exec(line);
    if (opened && !RESULT.test(line)) {
      const indent = (opened[1] as string).length;
      while (suites.length > 0 && (suites.at(-1)?.indent ?? 0) >= indent) suites.pop();
      if (!/\(\d[\d.]*m?s\)$/.test(line)) suites.push({ name: opened[2] as string, indent });
      continue;
    }
    const result = RESULT.exec(line);
    if (!result) {
      if (line.trim() !== '' && !line.startsWith('ℹ ')) said.push(line.trim());
      continue;
    }
    const indent = (result[1] as string).length;
    const name = result[3] as string;
    while (suites.length > 0 && (suites.at(-1)?.indent ?? 0) > indent) suites.pop();
    const closes = suites.at(-1)?.indent === indent && suites.at(-1)?.name === name;
    if (closes) suites.pop();
    const at = i;
    const body = bodyOf(lines, at, indent);
    i = body.end;
    const before = said;
    said = [];
    if (result[2] !== '✖' || result[4]?.startsWith(' # TODO')) continue;
    // A suite that failed only because a test in it did prints no error of its own.
    if (
      closes &&
      body.lines.every((l) => l.trim() === '') &&
      !listed.some((l) => l.name === name && l.body.lines.length > 0)
    )
      continue;
    const again = listed.findIndex((l) => l.name === name);
    const copy = again < 0 ? null : (listed.splice(again, 1)[0] as Listed);
    const error = body.lines.some((l) => l.trim() !== '') ? body : (copy?.body ?? body);
    const frames = [...jsFrames(error.lines), ...(copy?.declared ? [copy.declared] : [])];
    failures.push(
      failedTest([...suites.filter((s) => s.indent < indent).map((s) => s.name), name], cwd, before, {
        message: messageOf(error.lines),
        location: pickLocation(frames, cwd),
        excerpt: error === body ? excerptOf(lines, at, body.end + 1) : excerptOf(lines, copy?.at ?? at, error.end + 1),
      }),
    );
  }
  return failures;
}
