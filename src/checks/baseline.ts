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

/**
 * How a check on the merged result compares with the same check on both tips:
 * - `pass`: it passed on the merge;
 * - `new_failures`: tests fail on the merge that fail on neither tip (`blamed`): the resolutions broke them;
 * - `inherited_only`: every test failing on the merge already fails on a tip: nothing to blame;
 * - `broken_by_merge`: no test could be named, but the check passed on both tips and fails on the merge;
 * - `cannot_tell`: no test could be named on some side and the check also fails on a tip, so the
 *   failure on the merge may be the tip's own.
 */
export type BaselineVerdict = 'pass' | 'new_failures' | 'inherited_only' | 'broken_by_merge' | 'cannot_tell';

export interface BaselineComparison {
  verdict: BaselineVerdict;
  /** `tests` when failing tests were compared by name, `outcome` when only pass/fail could be. */
  by: 'tests' | 'outcome';
  /** Failing on the merge and on neither tip: blamed on the resolutions. */
  blamed: string[];
  /** Failing on the merge and on a tip: not blamed. */
  inherited: string[];
  /**
   * A run stopped short, so the comparison may be wrong (`reason` says how): fewer tests ran on the merge than
   * on a tip (a runner stopping at its first failure, such as mocha `--bail`, may have hidden failures of the
   * merge behind one a tip already has), or a failing tip ran fewer tests than the merge (its baseline may
   * miss some of its own failures).
   */
  incomplete: boolean;
  /** One sentence for the report and the hand-off. */
  reason: string;
}

/**
 * Blame only what the merge broke: compare the failing tests of a check on the merged result with those of
 * the same check on the fork tip and the upstream tip (their baselines). A pure function of plain data.
 */
export function compareWithBaselines(merged: SideOutcome, tips: { fork: SideOutcome; upstream: SideOutcome }): BaselineComparison {
  const failingTips = (['fork', 'upstream'] as const).filter((side) => !tips[side].passed);
  if (merged.passed) {
    const note = failingTips.length > 0 ? ` (it fails on the ${failingTips.join(' and ')} tip${failingTips.length > 1 ? 's' : ''})` : '';
    return { verdict: 'pass', by: 'tests', blamed: [], inherited: [], incomplete: false, reason: `the check passes on the merge${note}` };
  }
  const unnamed = [merged.failing === null ? 'the merge' : null, ...failingTips.filter((side) => tips[side].failing === null).map((side) => `the ${side} tip`)].filter((x): x is string => x !== null);
  if (merged.failing === null || unnamed.length > 0) {
    if (failingTips.length === 0) {
      return { verdict: 'broken_by_merge', by: 'outcome', blamed: [], inherited: [], incomplete: false, reason: 'the check passes on both tips and fails on the merge (no test names could be read on the merge)' };
    }
    const tipsText = failingTips.map((side) => `the ${side} tip`).join(' and ');
    return {
      verdict: 'cannot_tell',
      by: 'outcome',
      blamed: [],
      inherited: [],
      incomplete: false,
      reason: `the check fails on the merge and also on ${tipsText}, and no test names could be read on ${unnamed.join(' and ')}: cannot tell whether the merge broke more`,
    };
  }
  const known = new Set([...(tips.fork.failing ?? []), ...(tips.upstream.failing ?? [])]);
  const blamed = merged.failing.filter((id) => !known.has(id));
  const inherited = merged.failing.filter((id) => known.has(id));
  const notes = shortRuns(merged, tips, blamed.length > 0);
  const early = notes.length > 0 ? `; ${notes.join('; ')}` : '';
  const incomplete = notes.length > 0;
  if (blamed.length === 0) {
    return { verdict: 'inherited_only', by: 'tests', blamed, inherited, incomplete, reason: `every test failing on the merge also fails on a tip (${count(inherited)}): nothing is blamed on the resolutions${early}` };
  }
  const also = inherited.length > 0 ? `; ${count(inherited)} also failing on a tip not blamed` : '';
  return { verdict: 'new_failures', by: 'tests', blamed, inherited, incomplete, reason: `${count(blamed)} failing on the merge and on neither tip${also}${early}` };
}

/**
 * Runs that stopped short (a runner stopping at its first failure: mocha --bail, pytest -x): fewer tests on the
 * merge than on a tip may hide failures of the merge; a failing tip that ran fewer tests than the merge has a
 * baseline that may miss some of its own failures, which are then blamed on the merge.
 */
function shortRuns(merged: SideOutcome, tips: { fork: SideOutcome; upstream: SideOutcome }, blaming: boolean): string[] {
  const ran = merged.ran ?? null;
  if (ran === null) return [];
  const notes: string[] = [];
  const most = Math.max(...(['fork', 'upstream'] as const).map((side) => tips[side].ran ?? 0));
  if (ran < most) notes.push(`only ${ran} tests ran on the merge against ${most} on a tip, so a runner that stops at its first failure (mocha --bail, pytest -x) may hide more`);
  for (const side of ['fork', 'upstream'] as const) {
    const tip = tips[side];
    if (blaming && !tip.passed && tip.ran !== undefined && tip.ran !== null && tip.ran < ran) notes.push(`the ${side} tip stopped after ${tip.ran} tests (${ran} ran on the merge), so some tests blamed here may never have run there`);
  }
  return notes;
}

function count(ids: string[]): string {
  return `${ids.length} test${ids.length === 1 ? '' : 's'}`;
}
