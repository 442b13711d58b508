import type { TestRunner } from './types.js';

const sum = (values: (string | undefined)[]): number => values.reduce((n, v) => n + Number(v ?? 0), 0);

/** Per runner, the summary lines that say how many tests ran (passed + failed; skipped ones are not counted). */
const counters: Partial<Record<TestRunner, (lines: string[]) => number | null>> = {
  mocha: (lines) => total(lines, [/^\s*(\d+) passing \(/, /^\s*(\d+) failing\s*$/]),
  jest: (lines) => total(lines, [/^Tests:.*?(\d+) passed/, /^Tests:.*?(\d+) failed/]),
  vitest: (lines) => total(lines, [/^\s*Tests\s.*?(\d+) passed/, /^\s*Tests\s.*?(\d+) failed/]),
  pytest: (lines) => {
    const line = lines.findLast((l) => /\d+ (?:passed|failed).* in [\d.]+s/.test(l));
    return line
      ? sum([/(\d+) passed/.exec(line)?.[1], /(\d+) failed/.exec(line)?.[1], /(\d+) errors?/.exec(line)?.[1]])
      : null;
  },
  cargo: (lines) => {
    const results = lines
      .map((l) => /^test result: \w+\. (\d+) passed; (\d+) failed;/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null);
    return results.length > 0 ? results.reduce((n, m) => n + sum([m[1], m[2]]), 0) : null;
  },
  rspec: (lines) => {
    const m = lines.map((l) => /^(\d+) examples?, \d+ failures?(?:, (\d+) pending)?/.exec(l)).find(Boolean);
    return m ? Number(m[1]) - Number(m[2] ?? 0) : null;
  },
};

/** How many tests ran, from the runner's own summary; null when it prints none (go test) or it is not there. */
export function testsRun(lines: string[], runner: TestRunner): number | null {
  return counters[runner]?.(lines) ?? null;
}

function total(lines: string[], patterns: RegExp[]): number | null {
  const found = patterns.map((p) => lines.map((l) => p.exec(l)?.[1]).find((v) => v !== undefined));
  return found.every((v) => v === undefined) ? null : sum(found);
}
