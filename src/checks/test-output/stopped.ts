import type { TestRunner } from './types.js';

/** What the runner itself prints when it stops before running every test. */
const said: Array<[TestRunner, RegExp, (m: RegExpExecArray) => string]> = [
  ['pytest', /^!+ (stopping after \d+ failures?) !+$/, (m) => `pytest: ${m[1]} (-x or --maxfail)`],
  ['pytest', /^!+ (Interrupted: .+?) !+$/, (m) => `pytest: ${m[1]}`],
  ['pytest', /^!+ (KeyboardInterrupt) !+$/, (m) => `pytest: ${m[1]}`],
];

/**
 * The flags that make a runner stop at its first failure. A long flag counts on the configured check command
 * whatever program it names (a wrapper script passing it on); a short one only beside the runner's name.
 */
const stopFlags: Partial<Record<TestRunner, { program: RegExp; long: RegExp; short?: RegExp }>> = {
  mocha: { program: /\bmocha\b/, long: /(?:^|\s)(--bail)(?=\s|$)/, short: /(?:^|\s)(-b)(?=\s|$)/ },
  jest: { program: /\bjest\b/, long: /(?:^|\s)(--bail(?:=\d+)?)(?=\s|$)/, short: /(?:^|\s)(-b)(?=\s|$)/ },
  vitest: { program: /\bvitest\b/, long: /(?:^|\s)(--bail(?:=\d+)?)(?=\s|$)/ },
  rspec: { program: /\brspec\b/, long: /(?:^|\s)(--fail-fast(?:=\d+)?)(?=\s|$)/ },
  go: { program: /\bgo\s+test\b/, long: /(?:^|\s)(-failfast)(?=\s|$)/ },
};

/**
 * Why a run stopped before running every test, as its own output says: pytest's `stopping after N failures`
 * (`-x`, `--maxfail`) or `Interrupted:`, or a stop-at-first-failure flag (`mocha --bail`, `jest --bail`, `rspec --fail-fast`, `go test -failfast`) on the command that ran it: the
 * configured check, or a script line npm, yarn or pnpm echo (`> mocha --bail test/`). Null when nothing says so:
 * a run that ran fewer tests than another is not a stop (the two commits may have different tests). A flag
 * stops nothing where no test failed.
 */
export function stoppedEarly(
  lines: string[],
  runner: TestRunner,
  failed: number,
  command: string | undefined,
): string | null {
  for (const [who, pattern, why] of said) {
    if (who !== runner) continue;
    for (const line of lines) {
      const m = pattern.exec(line.trim());
      if (m) return why(m);
    }
  }
  const stop = stopFlags[runner];
  if (!stop || failed === 0) return null;
  const echoed = lines.filter((l) => /^> \S/.test(l)).map((l) => l.slice(2));
  const flagOn = (line: string, configured: boolean): string | undefined => {
    const named = stop.program.test(line);
    if (!named && !configured) return undefined;
    return stop.long.exec(line)?.[1] ?? (named ? stop.short?.exec(line)?.[1] : undefined);
  };
  const flag = (command ? flagOn(command, true) : undefined) ?? echoed.map((l) => flagOn(l, false)).find(Boolean);
  return flag ? `${runner} ran with ${flag}, which stops at the first failing test` : null;
}

/** Runners that always end with a summary line: one missing from a failed run means it died before the end. */
const summarised: readonly TestRunner[] = ['pytest', 'mocha', 'jest', 'vitest', 'cargo', 'rspec'];

/** A failed run of `runner` that printed no summary (how many ran): it crashed or was killed before its end. */
export function diedBeforeSummary(runner: TestRunner, ran: number | null): string | null {
  return ran === null && summarised.includes(runner) ? `the run ended before ${runner} printed its summary` : null;
}
