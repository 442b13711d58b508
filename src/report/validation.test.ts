import { describe, expect, it } from 'vitest';
import { initialRunState, type CheckRecord, type RunState } from '../store/run-state.js';
import { readCheck, readingText, tallyText } from './check-reading.js';
import { finalValidation } from './validation.js';

const oid = (c: string): string => c.repeat(40);
const size = { i1: 3, i2: 13 };

function run(checks: CheckRecord[], status: RunState['status'] = 'done'): RunState {
  const base = initialRunState({
    name: 'upstream-merge',
    upstream: { ref: 'upstream', oid: oid('c') },
    fork: { branch: 'fork', originalOid: oid('f') },
    workdir: '/repo',
    phase: 'end',
    now: new Date('2026-01-02T03:00:00Z'),
  });
  const tip = (side: 'fork' | 'upstream', failing: number) => ({
    side,
    commit: oid(side === 'fork' ? 'f' : 'c'),
    cell: null,
    check: 'test',
    outcome: {
      passed: false,
      failing: Array.from({ length: failing }, (_, k) => `t::${side}${k}`),
      ran: 500,
      stopped: null,
    },
    logFile: `/logs/${side}.log`,
  });
  return {
    ...base,
    status,
    grid: { size, blockers: [] } as unknown as RunState['grid'],
    checks,
    baselines: [tip('fork', 66), tip('upstream', 71)],
  };
}

function check(over: Partial<CheckRecord>): CheckRecord {
  return {
    name: 'test',
    cell: size,
    target: 'cell',
    commit: oid('a'),
    success: false,
    exitCode: 1,
    timedOut: false,
    durationMs: 1000,
    logFile: '/logs/test.log',
    summary: null,
    attempt: 1,
    at: '2026-01-02T03:01:00.000Z',
    ...over,
  };
}

const inherited = (n: number, incomplete = false, reason = 'every test failing on the merge also fails on a tip') => ({
  verdict: 'inherited_only' as const,
  by: 'tests' as const,
  blamed: [],
  inherited: Array.from({ length: n }, (_, k) => `t::${k}`),
  incomplete,
  reason,
  against: ['fork tip', 'upstream tip'],
});

describe('how a check reads', () => {
  it('a failure only where the baselines fail reads as passed against the baselines, with its inherited count', () => {
    const c = check({ judgement: inherited(70) });
    expect(readCheck(c)).toBe('against_baseline');
    expect(readingText(readCheck(c), 70)).toBe('passed against the baselines (70 inherited failures)');
    expect(readCheck(check({ judgement: inherited(70, true) }))).toBe('not_validated');
    expect(readCheck(check({ success: true }))).toBe('passed');
    expect(readCheck(check({ target: 'baseline-ours', cell: null }))).toBe('baseline');
    expect(readCheck(check({ judgement: { ...inherited(1), verdict: 'new_failures', blamed: ['t::x'] } }))).toBe(
      'failed',
    );
    expect(readCheck(check({}))).toBe('failed');
    expect(tallyText(['baseline', 'baseline', 'against_baseline', 'passed'])).toBe(
      '1 passed, 1 passed against the baselines, 0 failed, 2 failing baselines',
    );
  });
});

describe('whether the merged tree is validated, and against what', () => {
  it('against the baselines: the tips it was compared with and the count of inherited failures (werkzeug 0.15.x)', () => {
    const v = finalValidation(run([check({ cell: { i1: 1, i2: 1 } }), check({ judgement: inherited(70) })]));
    expect(v).toMatchObject({
      validated: true,
      checks: [{ name: 'test', reading: 'against_baseline', inherited: 70 }],
    });
    expect(v?.text).toBe(
      'validated against the baselines on the merged tree: test fails only as the fork tip (fffffff, 66 failing tests) or the upstream tip (ccccccc, 71 failing tests) does (70 inherited failures, none blamed on a resolution)',
    );
  });

  it('every check passing; the latest run of each check on the last cell counts', () => {
    const v = finalValidation(
      run([
        check({ judgement: { ...inherited(1), verdict: 'new_failures', blamed: ['t::x'] } }),
        check({ success: true, target: 'final' }),
      ]),
    );
    expect(v).toEqual({
      validated: true,
      checks: [{ name: 'test', reading: 'passed', inherited: 0 }],
      text: 'validated: test passed on the merged tree',
    });
  });

  it('not validated: a run stopped early says why; no check at all says so; a running merge with none yet has nothing to say', () => {
    const stopped = finalValidation(
      run([
        check({
          judgement: inherited(1, true, 'the run on the merge stopped early (pytest: stopping after 1 failures)'),
        }),
      ]),
    );
    expect(stopped?.validated).toBe(false);
    expect(stopped?.text).toBe(
      'not validated: test on the merged tree: the run on the merge stopped early (pytest: stopping after 1 failures)',
    );
    expect(finalValidation(run([]))?.text).toBe('not validated: no check ran on the merged tree');
    expect(finalValidation(run([check({ success: true, cell: { i1: 1, i2: 1 } })], 'running'))).toBeNull();
  });
});
