import { parseTestFailures, type FailedTest, type ParseTestOptions, type TestFailures } from './test-output/index.js';
import type { FailureSummary, FailureType } from './types.js';

interface Hit {
  line: number;
  type: FailureType;
  location: string | null;
  cause: string;
  /** Lower = more fundamental (a compiler error beats the make line reporting it). */
  rank: number;
}

type Matcher = (lines: string[], i: number) => Omit<Hit, 'line'> | null;

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const strip = (s: string): string => s.replace(ANSI, '');

/** Patterns per tool family; each looks at one line (and may peek at the next ones). */
const matchers: Matcher[] = [
  // gcc / clang / go vet style: file:line:col: [fatal ]error: message
  (lines, i) => {
    const m = /^(.+?):(\d+):(?:(\d+):)?\s+(?:fatal\s+)?error:\s+(.+)$/.exec(lines[i] as string);
    return m ? { type: 'compile_error', location: `${m[1]}:${m[2]}`, cause: m[4] as string, rank: 0 } : null;
  },
  // tsc: file(line,col): error TS1234: message   |   file:line:col - error TS1234: message
  (lines, i) => {
    const m =
      /^(.+?)\((\d+),(\d+)\):\s+error\s+(TS\d+):\s+(.+)$/.exec(lines[i] as string) ??
      /^(.+?):(\d+):(\d+)\s+-\s+error\s+(TS\d+):\s+(.+)$/.exec(lines[i] as string);
    return m ? { type: 'compile_error', location: `${m[1]}:${m[2]}`, cause: `${m[4]}: ${m[5]}`, rank: 0 } : null;
  },
  // rustc / cargo: error[E0425]: message  then  --> src/main.rs:3:5
  (lines, i) => {
    const m = /^error(?:\[(E\d+)\])?:\s+(.+)$/.exec(lines[i] as string);
    if (!m || /could not compile|aborting due to|^test failed|^\d+ previous errors?/.test(m[2] as string)) return null;
    const loc = lines
      .slice(i + 1, i + 4)
      .map((l) => /^\s*-->\s+(.+?):(\d+):\d+/.exec(l))
      .find(Boolean);
    if (/linking with `.+` failed|undefined reference|undefined symbol/.test(m[2] as string))
      return { type: 'link_error', location: null, cause: m[2] as string, rank: 1 };
    return {
      type: 'compile_error',
      location: loc ? `${loc[1]}:${loc[2]}` : null,
      cause: m[1] ? `${m[1]}: ${m[2]}` : (m[2] as string),
      rank: 0,
    };
  },
  // go build: ./main.go:12:2: undefined: foo
  (lines, i) => {
    const m = /^(\.?\.?\/?[\w./-]+\.go):(\d+):(\d+):\s+(.+)$/.exec(lines[i] as string);
    return m ? { type: 'compile_error', location: `${m[1]}:${m[2]}`, cause: m[4] as string, rank: 0 } : null;
  },
  // linkers
  (lines, i) => {
    const l = lines[i] as string;
    const m =
      /undefined reference to [`'](.+?)'/.exec(l) ??
      /(?:undefined symbol|Undefined symbols for architecture \S+):?\s*(.*)$/.exec(l) ??
      /ld(?:\.lld|\.gold)?:\s+error:\s+(.+)$/.exec(l);
    if (!m) return null;
    const loc = /^(.+?\.o(?:bj)?):/.exec(l) ?? /^(.+?):\(/.exec(l);
    return {
      type: 'link_error',
      location: loc ? (loc[1] as string) : null,
      cause: `undefined reference or link failure: ${m[1] || l.trim()}`,
      rank: 1,
    };
  },
  // pytest: FAILED tests/test_x.py::test_y - AssertionError: ...
  (lines, i) => {
    const m = /^FAILED\s+(\S+?)(?:\s+-\s+(.+))?$/.exec(lines[i] as string);
    return m ? { type: 'test_failure', location: m[1] as string, cause: m[2] ?? 'test failed', rank: 2 } : null;
  },
  // Rust tests: thread 'mod::test' (123) panicked at src/lib.rs:3:28:  then the message
  (lines, i) => {
    const m = /^thread '(.+?)'(?: \(\d+\))? panicked at (.+?):(\d+):\d+:?\s*(.*)$/.exec(lines[i] as string);
    return m
      ? {
          type: 'test_failure',
          location: `${m[2]}:${m[3]}`,
          cause: `${m[1]}: ${m[4] || (lines[i + 1] ?? 'panicked').trim()}`,
          rank: 2,
        }
      : null;
  },
  // go test: --- FAIL: TestName (0.00s)
  (lines, i) => {
    const m = /^\s*--- FAIL:\s+(\S+)/.exec(lines[i] as string);
    if (!m) return null;
    // go test prints the failing t.Errorf lines just before (older versions: just after) the --- FAIL line.
    const near = [...lines.slice(Math.max(0, i - 5), i), ...lines.slice(i + 1, i + 4)];
    const detail = near.map((l) => /^\s+(\S+\.go:\d+):\s+(.+)$/.exec(l)).find(Boolean);
    return {
      type: 'test_failure',
      location: detail ? (detail[1] as string) : (m[1] as string),
      cause: detail ? (detail[2] as string) : `${m[1]} failed`,
      rank: 2,
    };
  },
  // vitest / jest: FAIL  file > suite > test   |   × test name   |   ● suite › test
  (lines, i) => {
    const l = lines[i] as string;
    const m = /^\s*FAIL\s+(\S+)(?:\s+>\s+(.+))?$/.exec(l) ?? /^\s*●\s+(.+?)\s+›\s+(.+)$/.exec(l);
    if (!m) return null;
    const why = lines
      .slice(i + 1, i + 8)
      .map((x) => /^\s*((?:AssertionError|Error|TypeError|ReferenceError|expect\().*)$/.exec(x))
      .find(Boolean);
    return {
      type: 'test_failure',
      location: m[2] ? `${m[1]} > ${m[2]}` : (m[1] as string),
      cause: why ? (why[1] as string) : 'test failed',
      rank: 2,
    };
  },
  // node assertion / uncaught error in a test script
  (lines, i) => {
    const m = /^(AssertionError(?: \[ERR_ASSERTION\])?|Error|TypeError|ReferenceError):\s+(.+)$/.exec(
      lines[i] as string,
    );
    if (!m) return null;
    const at = lines
      .slice(i + 1, i + 12)
      .map((x) => /at .*?\(?((?:file:\/\/)?\/?[^\s():]+\.(?:m?[jt]s|cjs)):(\d+):\d+\)?$/.exec(x))
      .find((x) => x && !/node:internal|node_modules/.test(x[1] as string));
    return {
      type: 'test_failure',
      location: at ? `${(at[1] as string).replace(/^file:\/\//, '')}:${at[2]}` : null,
      cause: `${m[1]}: ${m[2]}`,
      rank: 3,
    };
  },
  // ninja: FAILED: target   (the real error follows; used only when nothing better is found)
  (lines, i) => {
    const m = /^FAILED:\s+(.+)$/.exec(lines[i] as string);
    return m
      ? { type: 'compile_error', location: m[1] as string, cause: `ninja target failed: ${m[1]}`, rank: 8 }
      : null;
  },
  // make: *** [Makefile:12: target] Error 1
  (lines, i) => {
    const m = /^(?:g?make)(?:\[\d+\])?:\s+\*\*\*\s+\[(?:(.+?):(\d+):\s+)?(.+?)\]\s+Error\s+(\d+)/.exec(
      lines[i] as string,
    );
    return m
      ? {
          type: 'compile_error',
          location: m[1] ? `${m[1]}:${m[2]}` : (m[3] as string),
          cause: `make target '${m[3]}' failed (exit ${m[4]})`,
          rank: 9,
        }
      : null;
  },
];

const EXCERPT_LINES = 20;

export interface ExtractOptions extends ParseTestOptions {
  timedOut?: boolean;
  /**
   * The ids of the tests blamed on the resolutions (checks/baseline.ts): the summary names the first of
   * them and lists them all; the other failing tests are listed as failing on a baseline too.
   */
  blamed?: string[];
}

/**
 * The first real error in a check's log: compile, link, test failure or timeout,
 * with `file:line` and a bounded excerpt. Failing tests are named from the test
 * runner's own report (mocha, jest, vitest, pytest, go test, cargo test, rspec,
 * JUnit XML): the test, its assertion and its `file:line`. A compile or link error
 * comes first (the tests did not build); tool summaries (make's `***`, ninja's
 * `FAILED:`) are used only when nothing else is recognised. Null when nothing in
 * the log looks like an error.
 */
export function extractFailure(logText: string, options: ExtractOptions = {}): FailureSummary | null {
  const lines = logText.split(/\r?\n/).map(strip);
  if (options.timedOut) {
    const last = lines.filter(Boolean).slice(-EXCERPT_LINES).join('\n');
    return {
      error_type: 'timeout',
      location: null,
      root_cause: 'the check did not finish within check.timeout and was killed',
      excerpt: last,
    };
  }
  let best: Hit | null = null;
  for (let i = 0; i < lines.length; i++) {
    for (const match of matchers) {
      const hit = match(lines, i);
      if (hit && (best === null || hit.rank < best.rank)) best = { ...hit, line: i };
      if (hit) break;
    }
    if (best && best.rank === 0) break;
  }
  if (!best || best.rank > 1) {
    const tests = parseTestFailures(logText, options);
    if (tests && tests.failures.length > 0) return testSummary(tests, options.blamed);
  }
  if (!best) return null;
  const from = Math.max(0, best.line - 2);
  return {
    error_type: best.type,
    location: best.location,
    root_cause: clip(best.cause),
    excerpt: lines
      .slice(from, from + EXCERPT_LINES)
      .join('\n')
      .trimEnd(),
  };
}

/**
 * `"test title" — message`, at the failing test's `file:line`; the other failing tests are named after the
 * excerpt. With `blamed`, the first blamed test leads and the others are split into blamed and not blamed.
 */
function testSummary(tests: TestFailures, blamed?: string[]): FailureSummary {
  const isBlamed = (t: FailedTest): boolean => blamed === undefined || blamed.includes(t.id);
  const ordered = [...tests.failures.filter(isBlamed), ...tests.failures.filter((t) => !isBlamed(t))];
  const [first, ...others] = ordered as [FailedTest, ...FailedTest[]];
  const more = others.length > 0 ? ` (and ${others.length} more failing test${others.length === 1 ? '' : 's'})` : '';
  const listed = (list: FailedTest[]): string[] => [
    ...list.slice(0, 10).map((t) => `  ${t.id}${t.location ? ` (${t.location})` : ''}: ${t.message}`),
    ...(list.length > 10 ? [`  ... ${list.length - 10} more`] : []),
  ];
  const sections: string[] = [];
  if (blamed === undefined) {
    if (others.length > 0) sections.push('', `Also failing (${tests.runner}):`, ...listed(others));
  } else {
    const guilty = ordered.filter(isBlamed);
    const inherited = ordered.filter((t) => !isBlamed(t));
    if (guilty.length > 0)
      sections.push(
        '',
        `Blamed on the resolutions, failing on no baseline (${tests.runner}, ${guilty.length}):`,
        ...listed(guilty),
      );
    if (inherited.length > 0)
      sections.push('', `Failing on a tip too, not blamed (${inherited.length}):`, ...listed(inherited));
  }
  return {
    error_type: 'test_failure',
    location: first.location ?? first.id,
    root_cause: clip(`${first.title.includes('"') ? first.title : `"${first.title}"`} — ${first.message}${more}`),
    excerpt: [first.excerpt, ...sections].join('\n'),
  };
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
