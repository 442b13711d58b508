import { describe, expect, it } from 'vitest';
import { initialRunState, type RunState } from '../store/run-state.js';
import type { RunEvent } from '../store/run-events.js';
import { computeProgress, progressLine, tallyEvents } from './progress.js';

const t = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function run(): RunState {
  const base = initialRunState({
    name: 'up',
    upstream: { ref: 'upstream', oid: 'a'.repeat(40) },
    fork: { branch: 'main', originalOid: 'b'.repeat(40) },
    workdir: '/repo',
    phase: 'resolve_conflicts',
    now: new Date(t(0)),
  });
  const conflict = (i1: number, i2: number, path: string, status: 'resolved' | 'needs_person') => ({
    id: `${i1}-${i2}`,
    cell: { i1, i2 },
    files: [{ path, kind: 'content', hunks: [] }],
    status,
    resolutionTree: null,
    resolutionCommit: null,
    attempts: 1,
    resolvedInAttempt: null,
    blame: null,
  });
  return {
    ...base,
    conflicts: [
      conflict(1, 5, 'a.c', 'resolved'),
      conflict(2, 3, 'b.c', 'resolved'),
      conflict(3, 1, 'c.c', 'needs_person'),
    ],
    grid: {
      size: { i1: 10, i2: 10 },
      position: null,
      blockers: [
        { i1: 3, i2: 1 },
        { i1: 4, i2: 0 },
      ],
    },
    data: { tips: { tipConflicts: [['a.c'], ['b.c'], ['c.c'], ['d.c'], ['e.c', 'e_test.c']] } },
    strategy: {
      kind: 'batch',
      batchSize: 3,
      decidedBy: 'fallback',
      reasoning: '',
      decidedAt: t(0),
      prediction: { conflicts: 5, checkMs: 10_000, fullMs: 60_000, ms: 200_000, alternatives: [] },
    },
  };
}

const events = [
  { seq: 1, ts: t(0), type: 'node_entered', node: 'initialize', step: 0 },
  {
    seq: 2,
    ts: t(100),
    type: 'node_finished',
    node: 'initialize',
    next: 'plan_strategy',
    step: 1,
    durationMs: 100_000,
  },
  { seq: 3, ts: t(100), type: 'node_entered', node: 'resolve_conflicts', step: 1 },
  { seq: 4, ts: t(160), type: 'node_finished', node: 'resolve_conflicts', next: 'check', step: 2, durationMs: 60_000 },
  { seq: 5, ts: t(160), type: 'node_entered', node: 'check', step: 2 },
  { seq: 6, ts: t(170), type: 'check_started', name: 'build', cell: { i1: 2, i2: 5 }, attempt: 1 },
] as RunEvent[];

describe('computeProgress', () => {
  it('counts done and left (blockers not met yet included), the expected total, the running check and the time left', () => {
    const p = computeProgress(run(), tallyEvents(events), { now: new Date(t(200)), live: true });
    expect(p).toMatchObject({
      done: 2,
      left: 2,
      expected: 5,
      check: { name: 'build', cell: '2-5', elapsedMs: 30_000 },
    });
    expect(p.activeMs).toBe(160_000 + 40_000);
    // The blocker not met yet is one of the tips' groups no conflict touched (d.c or e.c): 5 in all, 3 still
    // expected at the measured 30 s each (60 s of conflict work for 2), then the full check and the finish
    // (the merge commit at a conflict's cost).
    expect(p.leftMs).toBe(3 * 30_000 + 60_000 + 30_000);
    expect(progressLine(p)).toMatch(
      /^conflicts 2 done, 2 left, ~5 expected \(at least 4\) \| check build on 2-5 running 30\.0s \| .* \| ~3m 00s left \(run 1m 30s, final checks 1m 00s, finish 30\.0s\)$/,
    );
  });

  it('says when time left will be known while no conflict is settled yet', () => {
    const none = run();
    const open = { ...none, conflicts: none.conflicts.map((c) => ({ ...c, status: 'needs_person' as const })) };
    const p = computeProgress(open, tallyEvents(events), { now: new Date(t(200)), live: true });
    expect(p.leftMs).toBeNull();
    expect(progressLine(p)).toMatch(/\| time left: measured once a conflict is settled$/);
  });

  it('shows no running check and no time running once the run stopped', () => {
    const p = computeProgress({ ...run(), status: 'needs_person', updatedAt: t(300) }, tallyEvents(events), {
      now: new Date(t(900)),
      live: false,
    });
    expect(p.check).toBeNull();
    expect(p.elapsedMs).toBe(300_000);
    expect(p.activeMs).toBe(160_000);
  });

  it('estimates from the grid explored, as a range, and counts the checks and the person once measured', () => {
    // A 10x10 grid, half of each row merged, 4 conflicts met in it (2 resolved, 1 open, 1 blocker not met).
    const state: RunState = {
      ...run(),
      data: {},
      grid: { ...run().grid!, filled: [5, 5, 5, 5, 5, 5, 5, 5, 5, 5] },
    };
    const check = (s: number) => ({
      seq: 10 + s,
      ts: t(s),
      type: 'check_finished',
      check: { name: 'build', target: 'cell', durationMs: 10_000 },
    });
    const asked = [
      ...events.slice(0, 4),
      check(161),
      check(162),
      { seq: 30, ts: t(170), type: 'person_needed', reason: '', files: [], commands: [] },
    ] as RunEvent[];
    const waiting = computeProgress(state, tallyEvents(asked), { now: new Date(t(200)), live: false });
    // 4 conflicts in 50 cells explored, 50 left: about 4 more, the range bounded by the grid.
    expect(waiting.expected).toBe(8);
    expect(waiting.range?.low).toBe(4);
    expect(waiting.range?.high).toBeGreaterThan(8);
    // Per conflict: 20 s of the run's own work (60 s less 20 s of checks, for 2), one 10 s check run;
    // 6 left; 1 hand-off for the 3 conflicts met (its open one counted), the person's pace not measured yet.
    expect(waiting.leftParts?.parts).toEqual({
      runMs: 120_000,
      checksMs: 60_000,
      personMs: null,
      finalMs: 60_000,
      finishMs: 20_000,
    });
    expect(progressLine(waiting)).toMatch(
      /~8 expected \(range 4-\d+\) .*\| ~4m 20s left \(run 2m 00s, checks 1m 00s, final checks 1m 00s, finish 20\.0s\) \+ your time on ~2 hand-off\(s\)$/,
    );
    const back = [
      ...asked,
      { seq: 31, ts: t(290), type: 'node_entered', node: 'resolve_conflicts', step: 3 },
    ] as RunEvent[];
    const resumed = computeProgress(state, tallyEvents(back), { now: new Date(t(300)), live: false });
    // The person took 2 minutes: 2 more hand-offs at that pace.
    expect(resumed.leftParts?.parts.personMs).toBe(2 * 120_000);
    expect(progressLine(resumed)).toMatch(
      /~8m 20s left \(run 2m 00s, checks 1m 00s, your pace 4m 00s over ~2 hand-off\(s\), final checks 1m 00s, finish 20\.0s\)$/,
    );
  });
});
