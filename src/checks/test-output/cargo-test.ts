import { excerptOf, oneLine, pickLocation, sumOf } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';

const SECTION = /^---- (\S+) stdout ----$/;

/**
 * cargo test (libtest): each test binary starts with `Running <target> (...)`, each failing test has a
 * `---- name stdout ----` section with `thread 'name' panicked at file:line:col:` and the message (before
 * Rust 1.73: `panicked at 'message', file:line:col`), and a `failures:` list names them all.
 * Identity: `target::module::test` (`src/lib.rs::tests::adds`).
 */
function parseCargoTest(lines: string[], cwd: string | undefined): FailedTest[] {
  const failures: FailedTest[] = [];
  let target = '';
  let listing = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const running = /^\s*Running (?:unittests |tests? |benches )?(\S+)/.exec(l) ?? /^\s*Doc-tests (\S+)/.exec(l);
    if (running)
      target = /Doc-tests/.test(l) ? `doc-tests ${running[1]}` : (running[1] as string).replace(/-[0-9a-f]{16}$/, '');
    if (/^failures:$/.test(l)) listing = true;
    if (/^test result: |^$/.test(l)) listing = false;
    const listed = listing ? /^ {4}(\S+)$/.exec(l) : null;
    if (listed && !failures.some((f) => f.id === idOf(target, listed[1] as string))) {
      failures.push({
        id: idOf(target, listed[1] as string),
        title: listed[1] as string,
        message: 'failed',
        location: null,
        excerpt: l,
      });
    }
    const section = SECTION.exec(l);
    if (!section) continue;
    let end = i + 1;
    while (end < lines.length && !SECTION.test(lines[end] as string) && !/^failures:$/.test(lines[end] as string))
      end++;
    failures.push(panicOf(lines, i, end, idOf(target, section[1] as string), section[1] as string, cwd));
    i = end - 1;
  }
  return failures;
}

function idOf(target: string, name: string): string {
  return target ? `${target}::${name}` : name;
}

function panicOf(
  lines: string[],
  start: number,
  end: number,
  id: string,
  title: string,
  cwd: string | undefined,
): FailedTest {
  const body = lines.slice(start + 1, end);
  const at = body.findIndex((l) => /^thread '.+?'(?: \(\d+\))? panicked at /.test(l));
  // Before Rust 1.73 the message is quoted on the panic line and may run over several (assert_eq!'s left and right).
  const quoted = at >= 0 && /panicked at '/.test(body[at] as string) ? oldPanic(body, at) : null;
  const old = quoted ? /panicked at '(.*)', (\S+?):(\d+)(?::\d+)?$/.exec(quoted) : null;
  const now = at >= 0 ? /panicked at (\S+?):(\d+):\d+:$/.exec(body[at] as string) : null;
  let message = old ? oneLine([old[1] as string]) : '';
  if (now) {
    const rest = body.slice(at + 1);
    const stop = rest.findIndex((l) => l.trim() === '' || /^stack backtrace:|^note: /.test(l));
    message = oneLine(rest.slice(0, stop < 0 ? rest.length : stop));
  }
  if (!message) message = oneLine([body.find((l) => l.trim() !== '') ?? 'failed']);
  const where = old
    ? { path: old[2] as string, line: old[3] as string }
    : now
      ? { path: now[1] as string, line: now[2] as string }
      : null;
  return {
    id,
    title,
    message,
    location: where ? pickLocation([where], cwd) : null,
    excerpt: excerptOf(lines, start, end),
  };
}

/** The panic line of Rust before 1.73 with its continuation lines, joined, up to the one ending with the `', file:line:col`. */
function oldPanic(body: string[], at: number): string {
  for (let j = at; j < body.length && j - at < 20; j++)
    if (/', \S+?:\d+(?::\d+)?$/.test(body[j] as string))
      return body
        .slice(at, j + 1)
        .map((l) => l.trim())
        .join(' ');
  return body[at] as string;
}

/** `cargo test`'s libtest output. */
export const cargoTest: TestOutputParser<'cargo'> = {
  name: 'cargo',
  detect: (lines) => lines.some((l) => /^running \d+ tests?$/.test(l) || /^test result: /.test(l)),
  parse: parseCargoTest,
  ran: (lines) => {
    const results = lines
      .map((l) => /^test result: \w+\. (\d+) passed; (\d+) failed;/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null);
    return results.length > 0 ? results.reduce((n, m) => n + sumOf([m[1], m[2]]), 0) : null;
  },
  failed: (lines) => {
    const results = lines
      .map((l) => /^test result: \w+\. \d+ passed; (\d+) failed;/.exec(l)?.[1])
      .filter((n) => n !== undefined);
    return results.length > 0 ? sumOf(results) : null;
  },
};
