import type { TestOutputParser } from './parser.js';
import { parserNamed, type TestRunner } from './registry.js';

/**
 * Why a run stopped before running every test, as its own output says: a line the runner prints when it stops
 * (pytest's `stopping after N failures` for `-x` and `--maxfail`, or `Interrupted:`), or its stop-at-first-failure
 * flag (`mocha --bail`, `jest --bail`, `rspec --fail-fast`, `go test -failfast`) on the command that ran it: the
 * configured check, or a script line npm, yarn or pnpm echo (`> mocha --bail test/`). Null when nothing says so:
 * a run that ran fewer tests than another is not a stop (the two commits may have different tests). A flag
 * stops nothing where no test failed.
 */
export function stoppedEarly(
  lines: string[],
  parser: TestOutputParser,
  failed: number,
  command: string | undefined,
): string | null {
  for (const { pattern, say } of parser.stopLines ?? []) {
    for (const line of lines) {
      const m = pattern.exec(line.trim());
      if (m) return say(m);
    }
  }
  const stop = parser.stopFlag;
  if (!stop || failed === 0) return null;
  const echoed = lines.filter((l) => /^> \S/.test(l)).map((l) => l.slice(2));
  const flagOn = (line: string, configured: boolean): string | undefined => {
    const named = stop.program.test(line);
    if (!named && !configured) return undefined;
    return stop.long.exec(line)?.[1] ?? (named ? stop.short?.exec(line)?.[1] : undefined);
  };
  const flag = (command ? flagOn(command, true) : undefined) ?? echoed.map((l) => flagOn(l, false)).find(Boolean);
  return flag ? `${parser.name} ran with ${flag}, which stops at the first failing test` : null;
}

/**
 * A failed run of `runner` that printed no summary (how many ran): it crashed or was killed before its end.
 * Only runners that always print one (those with a `ran` counter) can say so.
 */
export function diedBeforeSummary(runner: TestRunner, ran: number | null): string | null {
  return ran === null && parserNamed(runner)?.ran !== undefined
    ? `the run ended before ${runner} printed its summary`
    : null;
}
