import { excerptOf, oneLine, pickLocation } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';

// Early Go releases printed the duration as `(0.00 seconds)`.
const FAIL = /^(\s*)--- FAIL: (\S+) \([\d.]+ ?s(?:econds)?\)/;
const PACKAGE = /^(?:FAIL|ok)\s+(\S+)\s/;

/**
 * go test: `--- FAIL: TestName (0.00s)` per failing test (subtests indented, `TestName/sub`), the test's
 * `file_test.go:N: message` lines after it (before it with -v, after `=== RUN`), a `panic:` with a
 * goroutine trace when a test panicked, and `FAIL\tpackage` closing each package. A test that failed
 * only because a subtest did is left out. Identity: `package::TestName/sub`.
 */
function parseGoTest(lines: string[], cwd: string | undefined): FailedTest[] {
  const failures: (FailedTest & { pkg: string | null })[] = [];
  for (let i = 0; i < lines.length; i++) {
    const pkg = PACKAGE.exec(lines[i] as string);
    if (pkg) for (const f of failures) f.pkg ??= pkg[1] as string;
    const m = FAIL.exec(lines[i] as string);
    if (!m) continue;
    const indent = (m[1] as string).length;
    let end = i + 1;
    while (
      end < lines.length &&
      /^\s/.test(lines[end] as string) &&
      !FAIL.test(lines[end] as string) &&
      (lines[end] as string).search(/\S/) > indent
    )
      end++;
    let said = lines.slice(i + 1, end);
    if (!said.some((l) => /\.go:\d+:/.test(l))) said = verboseOutput(lines, i, m[2] as string);
    const panic = /^panic: /.test(lines[end] ?? '') ? end : -1;
    const stop = panic >= 0 ? traceEnd(lines, panic) : end;
    const reported = said.map((l) => /^\s+(\S+\.go):(\d+): (.*)$/.exec(l)).find(Boolean);
    const frames = lines
      .slice(panic >= 0 ? panic : end, stop)
      .map((l) => /^\t(\S+\.go):(\d+)/.exec(l))
      .filter((x): x is RegExpExecArray => x !== null);
    failures.push({
      id: m[2] as string,
      title: m[2] as string,
      message: reported
        ? oneLine([reported[3] as string])
        : panic >= 0
          ? oneLine([(lines[panic] as string).replace(/ \[recovered\]$/, '')])
          : 'failed',
      location: reported
        ? `${reported[1]}:${reported[2]}`
        : pickLocation(
            frames.map((f) => ({ path: f[1] as string, line: f[2] as string })),
            cwd,
          ),
      excerpt: excerptOf(lines, i, Math.max(end, stop)),
      pkg: null,
    });
  }
  const parents = new Set<string>();
  for (const f of failures) {
    const parts = f.id.split('/');
    for (let k = 1; k < parts.length; k++) parents.add(parts.slice(0, k).join('/'));
  }
  const leaves = failures.filter((f) => !parents.has(f.id));
  return leaves.map(({ pkg, ...f }) => ({ ...f, id: pkg ? `${pkg}::${f.id}` : f.id }));
}

/** With -v a test's own lines come before its `--- FAIL`, after its `=== RUN` (or `=== CONT`). */
function verboseOutput(lines: string[], at: number, name: string): string[] {
  const run = new RegExp(`^=== (?:RUN|CONT)\\s+${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  for (let j = at - 1; j >= 0; j--) if (run.test(lines[j] as string)) return lines.slice(j + 1, at);
  return [];
}

function traceEnd(lines: string[], from: number): number {
  let j = from + 1;
  while (j < lines.length && !/^(?:FAIL|ok)\s|^FAIL$/.test(lines[j] as string)) j++;
  return j;
}

/** `go test`, plain or -v; it prints no count of the tests that ran. */
export const goTest: TestOutputParser<'go'> = {
  name: 'go',
  detect: (lines) =>
    lines.some((l) => FAIL.test(l) || /^(?:FAIL|ok)\s+\S+\s+(?:[\d.]+s|\[)/.test(l) || /^=== RUN\s/.test(l)),
  parse: parseGoTest,
  stopFlag: { program: /\bgo\s+test\b/, long: /(?:^|\s)(-failfast)(?=\s|$)/ },
};
