import type { LogErrorMatcher } from './matcher.js';

/**
 * Single lines that name a failing test, rank 2-3: used when no runner in `../test-output/` recognises the log
 * (a truncated or interleaved report).
 */
export const testFailureLines: LogErrorMatcher[] = [
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
];
