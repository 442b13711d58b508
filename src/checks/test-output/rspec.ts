import { excerptOf, oneLine, pickLocation } from './lines.js';
import type { FailedTest } from './failed-test.js';
import type { TestOutputParser } from './parser.js';

/**
 * RSpec's progress and documentation formatters: `Failures:` then `  N) full description` blocks with
 * `Failure/Error: code`, the message (expected/got, or the exception), and `# ./file:line` frames;
 * `Failed examples:` maps each description to its file (`rspec ./spec/x_spec.rb:5 # description`).
 * Identity: `spec file > full description` (line numbers move between commits).
 */
function parseRspec(lines: string[], cwd: string | undefined): FailedTest[] {
  const files = new Map<string, string>();
  for (const l of lines) {
    const m = /^rspec '?\.?\/?([^\s':[]+)[^\s]*'? # (.+)$/.exec(l);
    if (m) files.set(m[2] as string, m[1] as string);
  }
  const from = lines.findIndex((l) => /^Failures:\s*$/.test(l));
  if (from < 0) return [];
  const failures: FailedTest[] = [];
  const starts: number[] = [];
  for (let i = from + 1, next = 1; i < lines.length && !/^Finished in /.test(lines[i] as string); i++) {
    if (new RegExp(`^\\s{2}${next}\\) \\S`).test(lines[i] as string)) {
      starts.push(i);
      next++;
    }
  }
  const last = lines.findIndex((l, i) => i > from && /^Finished in |^Failed examples:/.test(l));
  starts.forEach((start, k) => {
    const end = starts[k + 1] ?? (last < 0 ? lines.length : last);
    const description = (lines[start] as string).replace(/^\s*\d+\) /, '').trim();
    const body = lines.slice(start + 1, end);
    const error = body.findIndex((l) => /^\s*Failure\/Error:/.test(l));
    const rest = body.slice(error + 1);
    const first = rest.findIndex((l) => l.trim() !== '');
    const stop = rest.findIndex((l, j) => j > first && (l.trim() === '' || /^\s*# /.test(l)));
    const frames = body
      .map((l) => /^\s*# (\S+?):(\d+)(?::in .*)?$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null);
    const file = files.get(description);
    failures.push({
      id: file ? `${file} > ${description}` : description,
      title: description,
      message: oneLine(first < 0 ? ['failed'] : rest.slice(first, stop < 0 ? rest.length : stop)),
      location: pickLocation(
        frames.map((m) => ({ path: m[1] as string, line: m[2] as string })),
        cwd,
      ),
      excerpt: excerptOf(lines, start, end),
    });
  });
  return failures;
}

/** RSpec's progress and documentation formatters. */
export const rspec: TestOutputParser<'rspec'> = {
  name: 'rspec',
  detect: (lines) => lines.some((l) => /^\d+ examples?, \d+ failures?/.test(l)),
  parse: parseRspec,
  ran: (lines) => {
    const m = lines.map((l) => /^(\d+) examples?, \d+ failures?(?:, (\d+) pending)?/.exec(l)).find(Boolean);
    return m ? Number(m[1]) - Number(m[2] ?? 0) : null;
  },
  failed: (lines) => {
    const m = lines.map((l) => /^\d+ examples?, (\d+) failures?/.exec(l)).find(Boolean);
    return m ? Number(m[1]) : null;
  },
  stopFlag: { program: /\brspec\b/, long: /(?:^|\s)(--fail-fast(?:=\d+)?)(?=\s|$)/ },
};
