import type { TestFailures } from './test-output/types.js';

/** A check's outcome on one commit, as the baseline comparison needs it. Plain data (stored as JSON). */
export interface SideOutcome {
  passed: boolean;
  /** The ids of the failing tests; null when the check failed and no test could be named. */
  failing: string[] | null;
  /** How many tests ran, when the runner says. */
  ran?: number | null;
}

/** The outcome of a check run from its success and what `parseTestFailures` read in its log. */
export function sideOutcome(passed: boolean, tests: TestFailures | null): SideOutcome {
  const ran = tests?.ran ?? null;
  if (passed) return { passed: true, failing: [], ran };
  const failing = tests?.failures.map((t) => t.id) ?? [];
  return { passed: false, failing: failing.length > 0 ? [...new Set(failing)] : null, ran };
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
 *   failure on the merge may be the baseline's own.
 * Only `new_failures` and `broken_by_merge` blame the resolutions.
 */
export type BaselineVerdict = 'pass' | 'new_failures' | 'inherited_only' | 'broken_by_merge' | 'cannot_tell';

export interface BaselineComparison {
  verdict: BaselineVerdict;
  /** `tests` when failing tests were compared by name, `outcome` when only pass/fail could be. */
  by: 'tests' | 'outcome';
  /** Failing on the merge and on no baseline: blamed on the resolutions. */
  blamed: string[];
  /** Failing on the merge and on a baseline: not blamed. */
  inherited: string[];
  /**
   * A run stopped short, so the comparison may be wrong (`reason` says how): fewer tests ran on the merge than
   * on a baseline (a runner stopping at its first failure, such as mocha `--bail`, may have hidden failures of the
   * merge behind one a tip already has), or a failing baseline ran fewer tests than the merge (it may miss some
   * of its own failures, which are then blamed on the merge).
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
 * Runners that stop at their first failure (mocha --bail, pytest -x) hide what comes after it. So that such a
 * runner neither stops a run for nothing nor passes a merge that broke something:
 * - a merge that stopped at a failure a baseline has (fewer tests ran than on a baseline) blames nothing,
 *   but is `incomplete`: not a validation (see `validates`), and the reason says the rest never ran;
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
    return {
      verdict: 'cannot_tell',
      by: 'outcome',
      blamed: [],
      inherited: [],
      incomplete: false,
      reason: `the check fails on the merge and also on the ${joinLabels(failingSides)}${failingSides.length > 1 && tipsOnly ? 's' : ''}, and no test names could be read on ${unnamed.join(' and ')}: cannot tell whether the merge broke more`,
    };
  }
  const known = new Set(list.flatMap((b) => b.outcome.failing ?? []));
  const blamed = merged.failing.filter((id) => !known.has(id));
  const inherited = merged.failing.filter((id) => known.has(id));
  const notes = shortRuns(merged, list, blamed.length > 0, onA);
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
 * Runs that stopped short (a runner stopping at its first failure: mocha --bail, pytest -x): fewer tests on the
 * merge than on a baseline may hide failures of the merge; a failing baseline that ran fewer tests than the merge
 * may miss some of its own failures, which are then blamed on the merge.
 */
function shortRuns(merged: SideOutcome, list: Baseline[], blaming: boolean, onA: string): string[] {
  const ran = merged.ran ?? null;
  if (ran === null) return [];
  const notes: string[] = [];
  const most = Math.max(0, ...list.map((b) => b.outcome.ran ?? 0));
  if (ran < most)
    notes.push(
      `only ${ran} tests ran on the merge against ${most} on ${onA}, so a runner that stops at its first failure (mocha --bail, pytest -x) may hide more`,
    );
  for (const b of list) {
    const short = b.outcome.ran;
    if (blaming && !b.outcome.passed && short !== undefined && short !== null && short < ran)
      notes.push(
        `the ${b.label} stopped after ${short} tests (${ran} ran on the merge), so some tests blamed here may never have run there`,
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

function count(ids: string[]): string {
  return `${ids.length} test${ids.length === 1 ? '' : 's'}`;
}
