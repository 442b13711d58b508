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
    // expected at the measured 30 s each (60 s of conflict work for 2), then the full check.
    expect(p.leftMs).toBe(3 * 30_000 + 60_000);
    expect(progressLine(p)).toMatch(
      /^conflicts 2 done, 2 left, ~5 expected \| check build on 2-5 running 30\.0s \| .* \| ~2m 30s left$/,
    );
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
});
