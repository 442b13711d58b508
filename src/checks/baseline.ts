import { diedBeforeSummary } from './test-output/stopped.js';
import type { TestFailures } from './test-output/types.js';

/** A check's outcome on one commit, as the baseline comparison needs it. Plain data (stored as JSON). */
export interface SideOutcome {
  passed: boolean;
  /** The ids of the failing tests; null when the check failed and no test could be named. */
  failing: string[] | null;
  /** How many tests ran, when the runner says (for the reader: commits may have different tests). */
  ran?: number | null;
  /** Why the run stopped before running every test, as its own output says (`pytest -x`, `mocha --bail`, a crash). */
  stopped?: string | null;
  /** How many tests failed by the runner's own summary: compares sides whose failures could not be named. */
  failed?: number | null;
  /** The check's exit status (null when a signal ended it): compares sides when nothing else can. */
  exitCode?: number | null;
}

/**
 * The outcome of a check run from its success and what `parseTestFailures` read in its log. A failed run
 * killed by a signal, or one whose runner never printed its summary, stopped early too (a crash).
 */
export function sideOutcome(
  passed: boolean,
  tests: TestFailures | null,
  options: { signal?: string | null; exitCode?: number | null } = {},
): SideOutcome {
  const ran = tests?.ran ?? null;
  if (passed) return { passed: true, failing: [], ran, stopped: null };
  const failing = tests?.failures.map((t) => t.id) ?? [];
  // A count matters only where no test is named (a named side counts its names).
  const counted = failing.length === 0 ? (tests?.failed ?? null) : null;
  const signals = {
    ...(counted !== null ? { failed: counted } : {}),
    ...(options.exitCode !== undefined ? { exitCode: options.exitCode } : {}),
  };
  const stopped =
    tests?.stopped ??
    (options.signal ? `killed by ${options.signal}` : null) ??
    (tests ? diedBeforeSummary(tests.runner, ran) : null);
  return { passed: false, failing: failing.length > 0 ? [...new Set(failing)] : null, ran, stopped, ...signals };
}

/** A commit whose failures are not blamed on resolutions (a tip, or the fork or upstream commit of a cell), named for the reader. */
export interface Baseline {
  /** `fork tip`, `upstream tip`, `fork commit 3 (1a2b3c4)`, ... */
  label: string;
  outcome: SideOutcome;
}

/**
 * How a check on the merged result compares with the same check on its baselines (both tips, and where
 * given the fork and upstream commits of the cell):
 * - `pass`: it passed on the merge;
 * - `new_failures`: tests fail on the merge that fail on no baseline (`blamed`): the resolutions broke them;
 * - `inherited_only`: every test failing on the merge already fails on a baseline: nothing to blame;
 * - `broken_by_merge`: no test could be named, but the check passed on every baseline and fails on the merge;
 * - `cannot_tell`: no test could be named on some side and the check also fails on a baseline, so the
 *   failure on the merge may be the baseline's own, and neither the runners' counts of failing tests nor the
 *   exit statuses tell them apart.
 * Only `new_failures` and `broken_by_merge` blame the resolutions.
 */
type BaselineVerdict = 'pass' | 'new_failures' | 'inherited_only' | 'broken_by_merge' | 'cannot_tell';

export interface BaselineComparison {
  verdict: BaselineVerdict;
  /** `tests` when failing tests were compared by name, `outcome` when only pass/fail could be. */
  by: 'tests' | 'outcome';
  /** Failing on the merge and on no baseline: blamed on the resolutions. */
  blamed: string[];
  /** Failing on the merge and on a baseline: not blamed. */
  inherited: string[];
  /**
   * A run stopped before its end, as its own output says, so the comparison may be wrong (`reason` says how): the
   * run on the merge (a runner stopping at its first failure, such as mocha `--bail`, may have hidden failures of
   * the merge behind one a tip already has), or a failing baseline's where tests are blamed (it may miss some of
   * its own failures, which are then blamed on the merge). Fewer tests on one side is not a stop: the two
   * commits may simply have different tests.
   */
  incomplete: boolean;
  /** One sentence for the decision log, the report and the hand-off. */
  reason: string;
}

/** Does this comparison blame the resolutions? */
export function blamesResolutions(comparison: BaselineComparison): boolean {
  return comparison.verdict === 'new_failures' || comparison.verdict === 'broken_by_merge';
}

/**
 * Does this comparison validate what was checked? It passed, or it failed only as its baselines do with no test
 * left unrun. A merge that stopped at an inherited failure before running every test (incomplete), or whose
 * failure cannot be told from a baseline's, is not blamed, and not validated either.
 */
export function validates(comparison: BaselineComparison): boolean {
  return comparison.verdict === 'pass' || (comparison.verdict === 'inherited_only' && !comparison.incomplete);
}

/**
 * Blame only what the merge broke: compare the failing tests of a check on the merged result with those of
 * the same check on its baselines: the fork tip and the upstream tip (`{ fork, upstream }`), or a labelled
 * list that may add the fork and upstream commits of a cell. A pure function of plain data.
 *
 * Tests are compared one by one, by name: a test that exists on one side only (the tips have different tests)
 * is compared like any other. Runners that stop at their first failure (mocha --bail, pytest -x) hide what comes
 * after it; where a run's own output says it stopped (`SideOutcome.stopped`), so that such a runner neither stops
 * a run for nothing nor passes a merge that broke something:
 * - a merge that stopped at a failure a baseline has blames nothing, but is `incomplete`: not a validation
 *   (see `validates`), and the reason says the rest never ran;
 * - tests failing on the merge alone are blamed even when a failing baseline stopped before reaching them
 *   (a broken merge must not pass); the reason says that they may never have run there, so the person
 *   reading the summary knows the blame may be that side's.
 */
export function compareWithBaselines(
  merged: SideOutcome,
  baselines: { fork: SideOutcome; upstream: SideOutcome } | Baseline[],
): BaselineComparison {
  const list: Baseline[] = Array.isArray(baselines)
    ? baselines
    : [
        { label: 'fork tip', outcome: baselines.fork },
        { label: 'upstream tip', outcome: baselines.upstream },
      ];
  const tipsOnly = list.length === 2 && list.every((b) => b.label.endsWith(' tip'));
  const onA = tipsOnly ? 'a tip' : 'a baseline';
  const failingSides = list.filter((b) => !b.outcome.passed);
  if (merged.passed) {
    const note =
      failingSides.length > 0
        ? ` (it fails on the ${joinLabels(failingSides)}${failingSides.length > 1 && tipsOnly ? 's' : ''})`
        : '';
    return {
      verdict: 'pass',
      by: 'tests',
      blamed: [],
      inherited: [],
      incomplete: false,
      reason: `the check passes on the merge${note}`,
    };
  }
  const unnamed = [
    merged.failing === null ? 'the merge' : null,
    ...failingSides.filter((b) => b.outcome.failing === null).map((b) => `the ${b.label}`),
  ].filter((x): x is string => x !== null);
  if (merged.failing === null || unnamed.length > 0) {
    if (failingSides.length === 0) {
      const every = tipsOnly ? 'both tips' : `the ${joinLabels(list)}`;
      return {
        verdict: 'broken_by_merge',
        by: 'outcome',
        blamed: [],
        inherited: [],
        incomplete: false,
        reason: `the check passes on ${every} and fails on the merge (no test names could be read on the merge)`,
      };
    }
    return compareUnnamed(merged, list, failingSides, unnamed, tipsOnly);
  }
  const known = new Set(list.flatMap((b) => b.outcome.failing ?? []).map(testKey));
  const blamed = merged.failing.filter((id) => !known.has(testKey(id)));
  const inherited = merged.failing.filter((id) => known.has(testKey(id)));
  const notes = stoppedRuns(merged, list, blamed.length > 0);
  const early = notes.length > 0 ? `; ${notes.join('; ')}` : '';
  const incomplete = notes.length > 0;
  const nowhere = tipsOnly ? 'neither tip' : `none of the ${joinLabels(list)}`;
  if (blamed.length === 0) {
    return {
      verdict: 'inherited_only',
      by: 'tests',
      blamed,
      inherited,
      incomplete,
      reason: `every test failing on the merge also fails on ${onA} (${count(inherited)}): nothing is blamed on the resolutions${early}`,
    };
  }
  const also = inherited.length > 0 ? `; ${count(inherited)} also failing on ${onA} not blamed` : '';
  return {
    verdict: 'new_failures',
    by: 'tests',
    blamed,
    inherited,
    incomplete,
    reason: `${count(blamed)} failing on the merge and on ${nowhere}${also}${early}`,
  };
}

/**
 * A test's identity as sides compare it: mocha 4 and later print a test's title path one part per line and
 * mocha 1 to 3 on one line (`a > b > c` and `a b c`), so a side that upgraded mocha names the same test alike.
 */
function testKey(id: string): string {
  return id.replace(/ > /g, ' ');
}

/**
 * The comparison where some failing side named no test: what the names cannot tell, the runners' counts of
 * failing tests and the exit statuses may.
 * - The merge's failures all fail on a baseline that names them: inherited, whatever an unnamed side fails of.
 * - More failures on the merge (or more left unexplained by name) than the unnamed baselines fail together,
 *   by their own counts: some failure is the merge's own, blamed.
 * - Only where a count is missing, an exit status the merge shares with no failing baseline: it fails otherwise,
 *   blamed (a status can be a count too, as mocha's is, so counts come first).
 */
function compareUnnamed(
  merged: SideOutcome,
  list: Baseline[],
  failingSides: Baseline[],
  unnamed: string[],
  tipsOnly: boolean,
): BaselineComparison {
  const onA = tipsOnly ? 'a tip' : 'a baseline';
  const named = failingSides.filter((b) => b.outcome.failing !== null);
  const silent = failingSides.filter((b) => b.outcome.failing === null);
  const known = new Set(named.flatMap((b) => b.outcome.failing ?? []).map(testKey));
  const unexplained = merged.failing?.filter((id) => !known.has(testKey(id))) ?? null;
  const unexplainedCount = unexplained?.length ?? merged.failed ?? null;
  const them = `the ${joinLabels(silent)}${silent.length > 1 && tipsOnly ? 's' : ''}`;
  if (merged.failing !== null && unexplained?.length === 0) {
    const notes = stoppedRuns(merged, list, false);
    return {
      verdict: 'inherited_only',
      by: 'tests',
      blamed: [],
      inherited: merged.failing,
      incomplete: notes.length > 0,
      reason: `every test failing on the merge also fails on ${onA} (${count(merged.failing)}): nothing is blamed on the resolutions; ${them} fails with no test named, which none of them needs${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`,
    };
  }
  // Without names on the merge, a named baseline accounts for as many failures as it names.
  const pool = merged.failing === null ? failingSides : silent;
  const bound = countBound(pool);
  const blame = (reason: string): BaselineComparison => ({
    verdict: unexplained ? 'new_failures' : 'broken_by_merge',
    by: unexplained ? 'tests' : 'outcome',
    blamed: unexplained ?? [],
    inherited: merged.failing?.filter((id) => known.has(testKey(id))) ?? [],
    incomplete: false,
    reason,
  });
  if (unexplainedCount !== null && bound !== null) {
    if (unexplainedCount > bound)
      return blame(
        `${count(unexplainedCount)} failing on the merge${unexplained ? ` and named on no baseline` : ''}, more than the ${bound} ${pool.length === 1 ? `the ${joinLabels(pool)} fails` : `failing on the ${joinLabels(pool)} together`} by ${pool.length === 1 ? 'its' : 'their'} runner's count (no test names could be read on ${andList(unnamed)})`,
      );
  } else {
    const codes = failingSides.map((b) => b.outcome.exitCode);
    if (merged.exitCode != null && codes.every((c) => c != null && c !== merged.exitCode))
      return blame(
        `the check exits with status ${merged.exitCode} on the merge and with ${[...new Set(codes)].join(' or ')} on the ${joinLabels(failingSides)}: it fails otherwise than they do (no test names could be read on ${andList(unnamed)})`,
      );
  }
  return {
    verdict: 'cannot_tell',
    by: 'outcome',
    blamed: [],
    inherited: [],
    incomplete: false,
    reason: `the check fails on the merge and also on the ${joinLabels(failingSides)}${failingSides.length > 1 && tipsOnly ? 's' : ''}, and no test names could be read on ${andList(unnamed)}: cannot tell whether the merge broke more`,
  };
}

/**
 * At most how many of the merge's failures these baselines can account for: on each side (fork, upstream,
 * failures a person accepted) the most any of its commits fails, summed over the sides, since the merge holds
 * the tests of both. Null when one of them gives no count.
 */
function countBound(sides: Baseline[]): number | null {
  const most = new Map<string, number>();
  for (const b of sides) {
    const n = b.outcome.failing?.length ?? b.outcome.failed;
    if (n === undefined || n === null) return null;
    const side = /^(fork|upstream)\b/.exec(b.label)?.[1] ?? b.label;
    most.set(side, Math.max(most.get(side) ?? 0, n));
  }
  return [...most.values()].reduce((a, b) => a + b, 0);
}

/**
 * Runs whose own output says they stopped early: the merge's may hide failures of its own behind one a baseline
 * has; a failing baseline's, where tests are blamed, may miss some of its own failures, which are then blamed.
 */
function stoppedRuns(merged: SideOutcome, list: Baseline[], blaming: boolean): string[] {
  const notes: string[] = [];
  if (merged.stopped)
    notes.push(
      `the run on the merge stopped early (${merged.stopped}), so the tests after it never ran and may hide more failures`,
    );
  for (const b of list) {
    if (blaming && !b.outcome.passed && b.outcome.stopped)
      notes.push(
        `the ${b.label} stopped early (${b.outcome.stopped}), so some tests blamed here may never have run there`,
      );
  }
  return notes;
}

function joinLabels(list: Baseline[]): string {
  const labels = list.map((b) => b.label);
  if (labels.length === 2 && labels.every((l) => l.endsWith(' tip')))
    return `${labels[0]?.replace(/ tip$/, '')} and ${labels[1]}`;
  return labels.length <= 1
    ? (labels[0] ?? 'baselines')
    : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}

/** `a`, `a and b`, `a, b and c`. */
function andList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function count(ids: string[] | number): string {
  const n = typeof ids === 'number' ? ids : ids.length;
  return `${n} test${n === 1 ? '' : 's'}`;
}
