import type { CheckRecord } from '../store/run-state.js';
import { baselineSideOf } from '../store/baseline-side.js';

/**
 * How a reader should take one check run:
 * - `passed`: it passed;
 * - `against_baseline`: it failed only where its baselines fail, every test run: nothing is blamed, and what was
 *   checked counts as validated against the baselines;
 * - `not_validated`: it failed, nothing is blamed, but it is no validation either (the run stopped early, or its
 *   failure cannot be told from a baseline's);
 * - `failed`: a failure blamed on the resolutions (or one never compared with the baselines);
 * - `baseline`: a failing run on a tip (or a cell's own fork or upstream commit): that side's baseline.
 */
export type CheckReading = 'passed' | 'against_baseline' | 'not_validated' | 'failed' | 'baseline';

const checkReadings: readonly CheckReading[] = ['passed', 'against_baseline', 'not_validated', 'failed', 'baseline'];

type Judged = Pick<CheckRecord, 'success' | 'target' | 'judgement'>;

export function readCheck(record: Judged): CheckReading {
  if (record.success) return 'passed';
  if (baselineSideOf(record.target) !== null) return 'baseline';
  const j = record.judgement;
  if (j === undefined || j.verdict === 'new_failures' || j.verdict === 'broken_by_merge') return 'failed';
  return j.verdict === 'inherited_only' && !j.incomplete ? 'against_baseline' : 'not_validated';
}

/** A reading in words: `passed`, `passed against the baselines (70 inherited failures)`, ... */
export function readingText(reading: CheckReading, inherited: number): string {
  return {
    passed: 'passed',
    against_baseline: `passed against the baselines (${inherited} inherited failure${inherited === 1 ? '' : 's'})`,
    not_validated: 'nothing blamed, not validated',
    failed: 'FAILED',
    baseline: 'fails (a baseline)',
  }[reading];
}

/** How many checks read each way. */
export function tallyReadings(readings: readonly CheckReading[]): Record<CheckReading, number> {
  const tally = Object.fromEntries(checkReadings.map((r) => [r, 0])) as Record<CheckReading, number>;
  for (const r of readings) tally[r] += 1;
  return tally;
}

/** `2 passed, 4 passed against the baselines, 0 failed, 2 failing baselines`: the readings that occur (always `failed`). */
export function tallyText(readings: readonly CheckReading[]): string {
  const tally = tallyReadings(readings);
  const words: Record<CheckReading, string> = {
    passed: 'passed',
    against_baseline: 'passed against the baselines',
    not_validated: 'nothing blamed but not validated',
    failed: 'failed',
    baseline: `failing baseline${tally.baseline === 1 ? '' : 's'}`,
  };
  return checkReadings
    .filter((r) => tally[r] > 0 || r === 'failed')
    .map((r) => `${tally[r]} ${words[r]}`)
    .join(', ');
}
