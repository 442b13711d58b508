import type { CheckRecord, RunState } from '../store/run-state.js';

/**
 * What the checks say of the merged tree, as the record keeps it:
 * - `validated`: every check passed on it;
 * - `against_baselines`: every check passed, or failed only as its baselines do with every test run;
 * - `not_validated`: a check could not validate it (it stopped early, its failure could not be told from a
 *   baseline's, a person accepted a blamed failure), or no check ran on it.
 */
export type MergeVerdict = 'validated' | 'against_baselines' | 'not_validated';

/** How one check on the merged tree reads. */
export interface FinalCheck {
  name: string;
  reading: 'passed' | 'against_baselines' | 'not_validated' | 'failed';
  /** Failing tests it shares with a baseline (none blamed). */
  inherited: number;
}

/** The latest run of each check on the merged tree: the grid's last cell, checked as a cell or as the final merge. */
export function finalTreeChecks(state: RunState): CheckRecord[] {
  const size = state.grid?.size;
  if (!size) return [];
  const latest = new Map<string, CheckRecord>();
  for (const c of state.checks) {
    if (c.target !== 'cell' && c.target !== 'final') continue;
    if (c.cell === null || c.cell.i1 !== size.i1 || c.cell.i2 !== size.i2) continue;
    latest.set(c.name, c);
  }
  return [...latest.values()];
}

function readFinal(c: CheckRecord): FinalCheck['reading'] {
  if (c.success) return 'passed';
  const j = c.judgement;
  if (j === undefined || j.verdict === 'new_failures' || j.verdict === 'broken_by_merge') return 'failed';
  return j.verdict === 'inherited_only' && !j.incomplete ? 'against_baselines' : 'not_validated';
}

/** The checks' verdict on the merged tree, and how each check reads there. */
export function mergeVerdict(state: RunState): { verdict: MergeVerdict; checks: FinalCheck[] } {
  const checks = finalTreeChecks(state).map((c) => ({
    name: c.name,
    reading: readFinal(c),
    inherited: c.judgement?.inherited.length ?? 0,
  }));
  const readings = new Set(checks.map((c) => c.reading));
  const verdict: MergeVerdict =
    checks.length === 0 || readings.has('failed') || readings.has('not_validated')
      ? 'not_validated'
      : readings.has('against_baselines')
        ? 'against_baselines'
        : 'validated';
  return { verdict, checks };
}

/** `Checks on the merge: test passed.`, the line of the merge message (README's example), for every verdict. */
export function checksOnMergeLine(state: RunState): string {
  const { checks } = mergeVerdict(state);
  if (checks.length === 0) return 'Checks on the merge: none ran on the merged tree (not validated).';
  const words = checks.map((c) => {
    switch (c.reading) {
      case 'passed':
        return `${c.name} passed`;
      case 'against_baselines':
        return `${c.name} passed against the baselines (${c.inherited} inherited failure${c.inherited === 1 ? '' : 's'})`;
      case 'not_validated':
        return `${c.name} not validated (nothing blamed)`;
      default:
        return `${c.name} failed`;
    }
  });
  return `Checks on the merge: ${words.join(', ')}.`;
}
