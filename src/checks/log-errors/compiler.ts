import type { LogErrorMatcher } from './matcher.js';

/**
 * Compiler errors, rank 0: the most fundamental failure a log can show.
 */
export const compilerErrors: LogErrorMatcher[] = [
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
];
