import { describe, expect, it } from 'vitest';
import type { CheckRecord, RunState } from '../store/run-state.js';
import { checksOnMergeLine, mergeVerdict } from './merge-verdict.js';

const judgement = (verdict: string, incomplete = false, inherited = ['t']) => ({
  verdict,
  by: 'tests',
  blamed: [],
  inherited,
  incomplete,
  reason: 'r',
  against: [],
});

function stateWith(checks: Array<Partial<CheckRecord>>): RunState {
  const records = checks.map((c) => ({ name: 'test', target: 'cell', cell: { i1: 2, i2: 3 }, success: true, ...c }));
  return { grid: { size: { i1: 2, i2: 3 } }, checks: records } as unknown as RunState;
}

describe('the checks’ verdict on the merged tree, as the record keeps it', () => {
  it('validated, against the baselines, or not validated; only the latest run of each check on the last cell counts', () => {
    expect(
      mergeVerdict(stateWith([{ success: false, judgement: judgement('new_failures') as never }, {}])).verdict,
    ).toBe('validated');
    const against = stateWith([{ target: 'final', success: false, judgement: judgement('inherited_only') as never }]);
    expect(mergeVerdict(against)).toEqual({
      verdict: 'against_baselines',
      checks: [{ name: 'test', reading: 'against_baselines', inherited: 1 }],
    });
    expect(checksOnMergeLine(against)).toBe(
      'Checks on the merge: test passed against the baselines (1 inherited failure).',
    );
    const stopped = stateWith([{ success: false, judgement: judgement('inherited_only', true) as never }]);
    expect(mergeVerdict(stopped).verdict).toBe('not_validated');
    expect(checksOnMergeLine(stopped)).toBe('Checks on the merge: test not validated (nothing blamed).');
    // A check on another cell is not a check of the merged tree.
    const elsewhere = stateWith([{ cell: { i1: 1, i2: 1 } }]);
    expect([mergeVerdict(elsewhere).verdict, checksOnMergeLine(elsewhere)]).toEqual([
      'not_validated',
      'Checks on the merge: none ran on the merged tree (not validated).',
    ]);
    expect(checksOnMergeLine(stateWith([{}, { name: 'lint' }]))).toBe('Checks on the merge: test passed, lint passed.');
  });
});
