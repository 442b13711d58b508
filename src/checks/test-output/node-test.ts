import { excerptOf, oneLine, pickLocation, summaryTotal } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';
import { failedTest, isNodeSpec, parseNodeSpec } from './node-test-spec.js';

const SUBTEST = /^(\s*)# Subtest: (.*)$/;
const RESULT = /^(\s*)(not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/;
/** The runner's own lines and a test file's output (`# ...`), not the closing counts (`# tests 6`). */
const DIAGNOSTIC = /^# (?!Subtest: |(?:tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$)/;
const FRAME = /\(?((?:file:\/\/)?\/[^\s()]+?):(\d+):\d+\)?\s*$/;

/**
 * `node --test --test-reporter=tap` (the default reporter when the output is not a terminal on Node 20):
 * `# Subtest: name` opens each test, indented four spaces per level of `describe`; `not ok N - name`
 * closes a failing one, followed by a YAML block (`---` to `...`) with `error`, `name`, `location` and
 * `stack`. A suite that failed only because a test in it did (`failureType: 'subtestsFailed'`) is left
 * out. Identity: `suite > test`, the names of the enclosing subtests and the test's own.
 */
function parseNodeTest(lines: string[], cwd: string | undefined): FailedTest[] {
  const path: string[] = [];
  const failures: FailedTest[] = [];
  let said: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opened = SUBTEST.exec(lines[i] as string);
    if (opened) {
      path.length = (opened[1] as string).length / 4;
      path.push(opened[2] as string);
      continue;
    }
    if (DIAGNOSTIC.test(lines[i] as string)) said.push((lines[i] as string).slice(2));
    const result = RESULT.exec(lines[i] as string);
    if (!result) continue;
    const depth = (result[1] as string).length / 4;
    const end = yamlEnd(lines, i);
    const yaml = lines.slice(i + 1, end);
    const before = said;
    said = [];
    // A todo test that fails does not fail the run (Node counts it under `# todo`).
    if (!result[2] || result[4] === 'TODO' || field(yaml, 'failureType')[0] === "'subtestsFailed'") continue;
    failures.push(
      failedTest([...path.slice(0, depth), result[3] as string], cwd, before, {
        message: messageOf(yaml),
        location: locationOf(yaml, cwd),
        excerpt: excerptOf(lines, i, end + 1),
      }),
    );
  }
  return failures;
}

/** The line closing the YAML block after a result (`...`), or the result's own line when it has none. */
function yamlEnd(lines: string[], at: number): number {
  if (!/^\s*---\s*$/.test(lines[at + 1] ?? '')) return at;
  for (let j = at + 2; j < lines.length; j++) if (/^\s*\.\.\.\s*$/.test(lines[j] as string)) return j;
  return lines.length - 1;
}

/** A key's value in a result's YAML block: one quoted value, or the lines of a `|-` block under it. */
function field(yaml: string[], key: string): string[] {
  const at = yaml.findIndex((l) => new RegExp(`^\\s*${key}:`).test(l));
  if (at < 0) return [];
  const line = yaml[at] as string;
  const value = line.slice(line.indexOf(':') + 1).trim();
  if (value !== '|-' && value !== '|') return [value];
  const indent = line.search(/\S/);
  const under: string[] = [];
  for (let j = at + 1; j < yaml.length && (yaml[j]?.trim() === '' || (yaml[j] as string).search(/\S/) > indent); j++)
    under.push(yaml[j] as string);
  return under;
}

const unquote = (s: string): string => s.replace(/^'(.*)'$/, '$1').replace(/''/g, "'");

/** `Name: error`, the error's lines joined on one line (AssertionError's diff included). */
function messageOf(yaml: string[]): string {
  const error = oneLine(field(yaml, 'error').map(unquote));
  const name = unquote(field(yaml, 'name')[0] ?? '');
  return name && !error.startsWith(name) ? oneLine([`${name}: ${error}`]) : error || 'failed';
}

/** The first frame of the stack in a test file (the failing line), else where the test is declared. */
function locationOf(yaml: string[], cwd: string | undefined): string | null {
  const frames = field(yaml, 'stack')
    .map((l) => FRAME.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ path: m[1] as string, line: m[2] as string }));
  const declared = FRAME.exec(unquote(field(yaml, 'location')[0] ?? ''));
  if (declared) frames.push({ path: declared[1] as string, line: declared[2] as string });
  return pickLocation(frames, cwd);
}

const isTap = (lines: string[]): boolean =>
  lines.some((l) => /^TAP version 1[34]$/.test(l)) && lines.some((l) => SUBTEST.test(l));

/** Node's built-in test runner with the TAP reporter, or the spec reporter (`node-test-spec.ts`). */
export const nodeTest: TestOutputParser<'node-test'> = {
  name: 'node-test',
  detect: (lines) => isTap(lines) || isNodeSpec(lines),
  parse: (lines, cwd) => (isTap(lines) ? parseNodeTest(lines, cwd) : parseNodeSpec(lines, cwd)),
  ran: (lines) =>
    isTap(lines)
      ? summaryTotal(lines, [/^# pass (\d+)$/, /^# fail (\d+)$/])
      : summaryTotal(lines, [/^ℹ pass (\d+)$/, /^ℹ fail (\d+)$/]),
  failed: (lines) => summaryTotal(lines, [isTap(lines) ? /^# fail (\d+)$/ : /^ℹ fail (\d+)$/]),
};
