import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../store/run-events.js';
import { expectedConflicts, expectedWords, timeLeft, timeLeftParts, timingsOf, type Timings } from './estimate.js';

/** A small deterministic generator (mulberry32), so the synthetic grids are the same on every run. */
function generator(start: number): () => number {
  let a = start;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` conflicting cells in an n1 x n2 grid; `rowWeight` makes some fork commits conflict more often. */
function conflictCells(n1: number, n2: number, count: number, next: () => number, rowWeight: (i: number) => number) {
  const weights = Array.from({ length: n1 }, (_, i) => rowWeight(i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const cells = new Map<string, [number, number]>();
  while (cells.size < count) {
    let x = next() * total;
    let i = 0;
    while (x > (weights[i] as number)) x -= weights[i++] as number;
    const j = 1 + Math.floor(next() * n2);
    cells.set(`${i + 1}-${j}`, [i + 1, j]);
  }
  return [...cells.values()];
}

/**
 * The estimates as the grid fills from the origin: the explored region is the cells under a line
 * i1/n1 + i2/n2 <= r (a down-set, as the merged cells are), every conflict in it known.
 */
function estimatesAsItFills(cells: Array<[number, number]>, reaches: number[], tips: number | null) {
  return reaches.map((r) => {
    const filled = Array.from({ length: 72 }, (_, i) =>
      Math.max(0, Math.min(1015, Math.floor(1015 * (r - (i + 1) / 72)))),
    );
    const conflictRows = cells.filter(([i, j]) => i / 72 + j / 1015 <= r).map(([i]) => i);
    const sample = { size: { i1: 72, i2: 1015 }, filled, blockedRows: [], conflictRows, tips };
    return { explored: filled.reduce((a, b) => a + b, 0), ...expectedConflicts(sample) };
  });
}

const reaches = [0.2, 0.3, 0.45, 0.7, 1, 1.4, 2];
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

describe('expectedConflicts', () => {
  it.each([
    ['conflicts spread evenly', () => 1],
    ['a few fork commits conflicting eight times as often', (i: number) => (i % 9 === 0 ? 8 : 1)],
  ])(
    'on 40 grids of 72x1015 with 374 conflicts (%s): the range holds the truth and narrows as the grid fills',
    (_, weight) => {
      const runs = Array.from({ length: 40 }, (_, t) => {
        const cells = conflictCells(72, 1015, 374, generator((t + 1) * 7919), weight);
        // The tips' merge groups into fewer conflicts than the grid meets (293 of 374 in the run this models).
        return { plain: estimatesAsItFills(cells, reaches, null), tips: estimatesAsItFills(cells, reaches, 293) };
      });
      const all = runs.flatMap((r) => r.plain.slice(0, -1));
      for (const e of all) expect(e.low).toBeGreaterThanOrEqual(e.known);
      const holds = all.filter((e) => e.low <= 374 && (e.high ?? 0) >= 374).length;
      expect(holds / all.length).toBeGreaterThanOrEqual(0.95);
      const widths = reaches.map((_, k) => median(runs.map((r) => (r.plain[k]!.high ?? 0) - r.plain[k]!.low)));
      for (let k = 1; k < widths.length; k++) expect(widths[k]).toBeLessThan(widths[k - 1] as number);
      // The grid full: the count is what was met, exactly.
      for (const r of runs) expect(r.plain.at(-1)).toMatchObject({ expected: 374, low: 374, high: 374 });
      // The first estimate, with 2% of the grid explored (a handful of conflicts met): within 1.5x of the
      // real count in most runs, and in nearly all once the tips' merge says the grid has at least 293.
      expect(runs[0]!.plain[0]!.explored / (72 * 1015)).toBeLessThan(0.02);
      const within = (k: 'plain' | 'tips'): number =>
        runs.filter((r) => r[k][0]!.expected < 1.5 * 374 && r[k][0]!.expected > 374 / 1.5).length / runs.length;
      expect(within('plain')).toBeGreaterThanOrEqual(0.6);
      expect(within('tips')).toBeGreaterThanOrEqual(0.85);
    },
  );

  it('is never below the conflicts known, and says what it rests on before the grid is explored', () => {
    const size = { i1: 10, i2: 10 };
    expect(expectedConflicts({ size, filled: [5, 5], blockedRows: [], conflictRows: [], tips: null })).toMatchObject({
      expected: 0,
      low: 0,
      basis: 'grid',
    });
    const sample = { size, filled: null, blockedRows: [1, 2], conflictRows: [1, 2, 3] };
    expect(expectedConflicts({ ...sample, tips: 5 })).toEqual({
      expected: 5,
      low: 3,
      high: null,
      known: 3,
      perRow: null,
      basis: 'tips',
    });
    expect(expectedConflicts({ ...sample, conflictRows: [1, 2, 3, 4, 5, 6, 7], tips: 5 })).toMatchObject({
      expected: 7,
      basis: 'known',
    });
    expect(expectedWords({ expected: 40, low: 31, high: 52 })).toBe('~40 expected (range 31-52)');
    expect(expectedWords({ expected: 5, low: 3, high: null })).toBe('~5 expected (at least 3)');
    expect(expectedWords({ expected: 1, low: 0, high: null })).toBe('~1 expected');
  });
});

const timings: Timings = {
  done: 10,
  met: 10,
  // 10 conflicts: 100 s of work, of which 60 s the check runs (12 of them, median 5 s).
  conflictWorkMs: 100_000,
  checkRuns: [4000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 6000],
  personWaits: [],
  handoffs: 2,
  handed: 2,
  stretches: [],
  cleanup: null,
};

describe('timeLeft', () => {
  it('adds the run, the checks at their median and the final checks; the person only once a continue is measured', () => {
    const before = timeLeft(20, timings, 30_000);
    // Per conflict: 4 s of the run's own work, 1.2 check runs of 5 s; 4 hand-offs for 20 conflicts.
    // The finish (the merge commit and the checkout brought forward) at a conflict's cost: no round is fitted.
    expect(before).toEqual({
      ms: 20 * 4000 + 20 * 6000 + 30_000 + 4000,
      parts: { runMs: 80_000, checksMs: 120_000, personMs: null, finalMs: 30_000, finishMs: 4000 },
      handoffsLeft: 4,
    });
    const after = timeLeft(20, { ...timings, personWaits: [600_000, 120_000, 300_000] }, 30_000);
    expect(after?.parts.personMs).toBe(4 * 300_000);
    expect(after?.ms).toBe(80_000 + 120_000 + 1_200_000 + 30_000 + 4000);
    expect(timeLeft(20, { ...timings, done: 0 }, 30_000)).toBeNull();
  });

  it('counts the finish: the merge commit, then the worktrees still held at the measured removal pace', () => {
    const events = [
      { type: 'worktrees_removed', ts: '2026-01-01T00:00:00.000Z', count: 3, durationMs: 2400, left: 6 },
      { type: 'worktrees_removed', ts: '2026-01-01T00:01:00.000Z', count: 1, durationMs: 1600, left: 4 },
    ] as RunEvent[];
    const t = timingsOf(events, 10, 10);
    // 4 removed in 4 s: 1 s a worktree, and 4 held now; the merge commit at a conflict's cost (4 s).
    expect(t.cleanup).toEqual({ perWorktreeMs: 1000, held: 4 });
    const left = timeLeft(20, { ...timings, cleanup: t.cleanup }, 30_000)!;
    expect(left.parts.finishMs).toBe(4000 + 4000);
    expect(left.ms).toBe(80_000 + 120_000 + 30_000 + 8000);
    expect(timeLeftParts(left, (ms) => `${ms / 1000}s`)).toBe('run 80s, checks 120s, final checks 30s, finish 8s');
    expect(timingsOf([], 10, 10).cleanup).toBeNull();
  });

  it('counts the open hand-off with its conflicts: one hand-off of 8 after 1 resolved is not one hand-off a conflict', () => {
    const first: Timings = { ...timings, done: 1, met: 9, handoffs: 1 };
    expect(timeLeft(450, first, 0)?.handoffsLeft).toBe(50);
  });

  it('measures the person from the hand-off to the continue that took it, and the checks on cells only', () => {
    const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const check = (target: string, durationMs: number) => ({
      type: 'check_finished',
      ts: at(0),
      check: { target, durationMs },
    });
    const events = [
      { type: 'node_finished', ts: at(10), node: 'resolve_conflicts', durationMs: 10_000 },
      check('cell', 3000),
      check('baseline-ours', 9000),
      { type: 'person_needed', ts: at(20) },
      { type: 'node_finished', ts: at(20), node: 'finalize', durationMs: 1000 },
      { type: 'node_entered', ts: at(95), node: 'resolve_conflicts' },
    ] as unknown as RunEvent[];
    expect(timingsOf(events, 1, 3)).toEqual({
      done: 1,
      met: 3,
      conflictWorkMs: 10_000,
      checkRuns: [3000],
      personWaits: [75_000],
      handoffs: 1,
      handed: 0,
      // The first hand-off opens a stretch: it closes at the next one.
      stretches: [],
      cleanup: null,
    });
  });
});

describe("the run's own work per conflict", () => {
  it('leaves out the first frontier (found once) and counts the node running up to now', () => {
    const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const events = [
      { type: 'node_entered', ts: at(0), node: 'initialize' },
      { type: 'grid_updated', ts: at(1), grid: {} },
      { type: 'node_finished', ts: at(2), node: 'initialize', durationMs: 2000 },
      { type: 'node_entered', ts: at(2), node: 'resolve_conflicts' },
      // The first autofill takes 30 s; each later one is part of a conflict's cost.
      { type: 'grid_updated', ts: at(32), grid: {} },
      { type: 'person_needed', ts: at(40) },
      { type: 'node_finished', ts: at(40), node: 'resolve_conflicts', durationMs: 38_000 },
      { type: 'node_entered', ts: at(100), node: 'resolve_conflicts' },
      { type: 'grid_updated', ts: at(110), grid: {} },
    ] as unknown as RunEvent[];
    // 8 s of the first node after its frontier, and 20 s of the node running at 120 s.
    expect(timingsOf(events, 2, 4, new Date(Date.parse(at(120))))).toMatchObject({
      conflictWorkMs: 28_000,
      personWaits: [60_000],
    });
    // Read after the run stopped, the node still open counts for nothing more.
    expect(timingsOf(events, 2, 4).conflictWorkMs).toBe(8_000);
  });

  it('forgets a frontier whose node was killed, and a node left open by a stop, and a time that does not parse', () => {
    const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const events = [
      { type: 'node_entered', ts: at(0), node: 'resolve_conflicts' },
      { type: 'grid_updated', ts: at(30), grid: {} },
      // Killed inside its first node: the next process starts again, its node's time never added.
      { type: 'run_outcome', ts: at(40) },
      { type: 'node_entered', ts: at(100), node: 'resolve_conflicts' },
      { type: 'grid_updated', ts: at(105), grid: {} },
      { type: 'node_finished', ts: at(120), node: 'resolve_conflicts', durationMs: 20_000 },
      { type: 'node_entered', ts: 'not a time', node: 'resolve_conflicts' },
      { type: 'run_outcome', ts: at(130) },
    ] as unknown as RunEvent[];
    // The second process's first autofill (5 s) is its frontier; the stop leaves no node running for a later reader.
    expect(timingsOf(events, 1, 1, new Date(Date.parse(at(9_999)))).conflictWorkMs).toBe(15_000);
  });
});

/** The time left's relative errors over the last half of a synthetic run, against the time it really took. */
function timeLeftErrors(start: number): number[] {
  const next = generator(start);
  const cells = conflictCells(72, 1015, 374, next, () => 1);
  // The grid explored in the order its conflicts are met (down-sets from the origin); each conflict costs
  // the run 10-30 s, 1-2 check runs of 40-80 s, and every third is the person's, 2-8 minutes of it.
  const order = [...cells].sort((a, b) => a[0] / 72 + a[1] / 1015 - (b[0] / 72 + b[1] / 1015));
  const costs = order.map((_, k) => ({
    run: 10_000 + 20_000 * next(),
    checks: Array.from({ length: next() < 0.3 ? 2 : 1 }, () => 40_000 + 40_000 * next()),
    person: k % 3 === 2 ? 120_000 + 360_000 * next() : 0,
  }));
  const spent = (c: (typeof costs)[number]): number => c.run + c.checks.reduce((a, b) => a + b, 0) + c.person;
  const total = costs.reduce((t, c) => t + spent(c), 0);
  let elapsed = 0;
  const errors: number[] = [];
  // The last twentieth is a few conflicts' noise against a few minutes: judged up to there.
  for (let done = 1; done < order.length * 0.95; done++) {
    elapsed += spent(costs[done - 1]!);
    const [i1, i2] = order[done - 1]!;
    const reach = i1 / 72 + i2 / 1015;
    const filled = Array.from({ length: 72 }, (_, i) =>
      Math.max(0, Math.min(1015, Math.floor(1015 * (reach - (i + 1) / 72)))),
    );
    const conflictRows = order.slice(0, done).map(([i]) => i);
    const range = expectedConflicts({ size: { i1: 72, i2: 1015 }, filled, blockedRows: [], conflictRows, tips: 293 });
    const past = costs.slice(0, done);
    const timings: Timings = {
      done,
      met: done,
      conflictWorkMs: past.reduce((t, c) => t + c.run + c.checks.reduce((a, b) => a + b, 0), 0),
      checkRuns: past.flatMap((c) => c.checks),
      personWaits: past.filter((c) => c.person > 0).map((c) => c.person),
      handoffs: past.filter((c) => c.person > 0).length,
      handed: past.filter((c) => c.person > 0).length,
      stretches: [],
      cleanup: null,
    };
    const left = timeLeft(Math.max(0, range.expected - done), timings, 0);
    if (elapsed >= total / 2) errors.push(Math.abs((left?.ms ?? 0) - (total - elapsed)) / (total - elapsed));
  }
  return errors;
}

describe('time left over a whole run', () => {
  it('on 10 synthetic 72x1015 runs of 374 conflicts, is mostly within 25% of the time it took over the last half', () => {
    const errors = Array.from({ length: 10 }, (_, t) => timeLeftErrors((t + 1) * 4242)).flat();
    expect(median(errors)).toBeLessThan(0.15);
    expect(errors.filter((e) => e < 0.25).length / errors.length).toBeGreaterThanOrEqual(0.8);
  });
});

describe('time left by layers', () => {
  const at = (s: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  /**
   * `n` hand-offs of 8 or 12 conflicts; continue k takes 2, 4 or 6 rounds at 4 s each, its conflicts at
   * 1 s and the cells its rounds merge (50 to 125 a round) at 2 ms.
   */
  function journal(n: number): RunEvent[] {
    // The first frontier's update, before the first hand-off: the cells it merged are no stretch's.
    const events: unknown[] = [{ type: 'grid_updated', ts: at(0), grid: { filled: [0] } }];
    let filled = 0;
    for (let k = 0; k < n; k++) {
      const t = k * 60;
      const rounds = 2 + (k % 3) * 2;
      const conflicts = 8 + (k % 2) * 4;
      const perRound = 50 + 25 * (k % 4);
      events.push({ type: 'person_needed', ts: at(t), conflicts: Array.from({ length: conflicts }, () => ({})) });
      events.push({ type: 'node_entered', ts: at(t + 2), node: 'resolve_conflicts' });
      for (let c = 0; c < conflicts; c++) events.push({ type: 'conflict_resolved', ts: at(t + 3) });
      for (let r = 0; r < rounds; r++) {
        filled += perRound;
        events.push({ type: 'grid_updated', ts: at(t + 4 + r), grid: { filled: [filled] } });
      }
      events.push({
        type: 'node_finished',
        ts: at(t + 40),
        node: 'resolve_conflicts',
        durationMs: 4000 * rounds + 1000 * conflicts + 2 * rounds * perRound,
      });
    }
    return events as RunEvent[];
  }

  it('folds the work between hand-offs into stretches, from the first hand-off on', () => {
    const t = timingsOf(journal(4), 40, 40);
    expect(t.stretches).toEqual([
      { workMs: 16_200, conflicts: 8, rounds: 2, cells: 100 },
      { workMs: 28_600, conflicts: 12, rounds: 4, cells: 300 },
      { workMs: 33_200, conflicts: 8, rounds: 6, cells: 600 },
    ]);
    expect(t.handed).toBe(40);
  });

  it('charges each layer its rounds: 10 conflicts in 10 layers take far longer than in one', () => {
    const t = timingsOf(journal(6), 60, 60);
    const wide = timeLeft(10, t, 0, { layers: 1, cells: 0 })!;
    const deep = timeLeft(10, t, 0, { layers: 10, cells: 0 })!;
    // Fitted exactly: a round 4 s, a conflict 1 s; 3.6 rounds a hand-off (2, 4, 6, 2, 4), so a layer.
    expect(wide.parts.runMs).toBeCloseTo(3.6 * 4000 + 10_000, 0);
    expect(deep.parts.runMs).toBeCloseTo(10 * 3.6 * 4000 + 10_000, 0);
    // Every conflict so far went to the person: each layer left is a hand-off.
    expect(deep.handoffsLeft).toBe(10);
    expect(wide.handoffsLeft).toBe(1);
    // Without layers (an older run's grid), the cost per conflict stands.
    expect(timeLeft(10, t, 0)!.handoffsLeft).toBe(Math.round((10 * 6) / 60));
  });

  it('charges the cells the grid has still to merge at their fitted cost', () => {
    const t = timingsOf(journal(6), 60, 60);
    const none = timeLeft(10, t, 0, { layers: 2, cells: 0 })!;
    const many = timeLeft(10, t, 0, { layers: 2, cells: 5000 })!;
    // 2 ms a cell, fitted exactly beside the rounds and the conflicts.
    expect(many.parts.runMs - none.parts.runMs).toBeCloseTo(5000 * 2, 0);
    expect(many.handoffsLeft).toBe(none.handoffsLeft);
  });
});
