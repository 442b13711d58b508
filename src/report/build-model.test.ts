import { describe, expect, it } from 'vitest';
import { syntheticSnapshot } from '../../test/fixtures/report/synthetic-run.js';
import { buildReportModel } from './build-model.js';
import { decodeRuns } from './grid-codes.js';

const now = new Date('2026-01-02T03:10:00Z');

describe('buildReportModel', () => {
  it('counts conflicts done and left and hunks by rung', () => {
    const m = buildReportModel(syntheticSnapshot(), { now });
    expect(m.progress).toMatchObject({ conflicts: 5, resolved: 4, left: 1, hunksOpen: 1, blockers: 1 });
    expect(m.progress.hunksByRung).toEqual({
      cache: 1,
      policy: 0,
      generated: 0,
      rule: 1,
      syntax: 0,
      learnt: 0,
      model: 1,
      person: 1,
    });
    expect(m.usage.total).toMatchObject({ calls: 6, inputTokens: 21000, unpricedCalls: 1 });
    expect(m.usage.total.costUsd).toBeCloseTo(0.0373);
    expect(m.usage.reviewer).toMatchObject({ calls: 1, inputTokens: 2000, outputTokens: 100 });
  });

  it('marks conflict cells with their rung and the cell whose last check failed', () => {
    const m = buildReportModel(syntheticSnapshot(), { now });
    const marks = Object.fromEntries(m.grid!.marks.map((x) => [`${x.i1}-${x.i2}`, x]));
    expect(marks['1-1']).toMatchObject({ conflict: '1-1', rung: 'rule', by: ['whitespace-only'] });
    expect(marks['2-3']).toMatchObject({ rung: 'model' });
    expect(marks['3-2']).toMatchObject({ rung: 'cache' });
    expect(marks['4-4']).toMatchObject({ rung: 'person' });
    expect(marks['5-3']).toMatchObject({ status: 'needs_person', rung: null });
    expect(marks['5-4']).toMatchObject({ conflict: null, failedCheck: 'build (attempt 1)', superseded: false });
    // A passing check after the failure keeps the history but clears "failed now".
    const snap = syntheticSnapshot();
    snap.state.checks.push({ ...snap.state.checks[2]!, success: true, attempt: 2, summary: null });
    const later = buildReportModel(snap, { now }).grid!.marks.find((x) => x.i1 === 5 && x.i2 === 4);
    expect(later).toMatchObject({ failedCheck: 'build (attempt 1)', superseded: true });
    // So does resolving the cell's conflict again after the failure.
    const again = syntheticSnapshot();
    again.state.checks.push({ ...again.state.checks[2]!, cell: { i1: 2, i2: 3 } });
    again.state.conflicts.find((c) => c.id === '2-3')!.resolvedInAttempt = 2;
    expect(buildReportModel(again, { now }).grid!.marks.find((x) => x.conflict === '2-3')).toMatchObject({
      failedCheck: 'build (attempt 1)',
      superseded: true,
    });
  });

  it('keeps the grid compact (run-length) and falls back to the size when git knows nothing', () => {
    const snap = syntheticSnapshot({ commits1: 2000, commits2: 500 });
    const m = buildReportModel(snap, { now });
    expect(m.grid!.cells.length).toBeLessThan(20_000);
    expect(decodeRuns(m.grid!.cells)).toBe(snap.grid!.letters);
    const bare = buildReportModel({ ...syntheticSnapshot(), grid: null }, { now });
    expect(bare.grid).toMatchObject({ len1: 7, len2: 6, source: 'size', forkAxis: [] });
    const letters = decodeRuns(bare.grid!.cells);
    expect(letters[3 * 7 + 5]).toBe('d'); // the blocker
    expect(letters[1 * 7 + 1]).toBe('b'); // a resolved conflict: manual
  });

  it('builds the timeline of decisions with their reasoning, failures, blames and outcomes', () => {
    const m = buildReportModel(syntheticSnapshot(), { now });
    expect(m.timeline.map((e) => e.kind)).toEqual(['strategy', 'failure', 'recovery', 'blame', 'handoff', 'outcome']);
    expect(m.timeline[0]).toMatchObject({
      by: 'planner',
      title: 'strategy: batch (batches of 3)',
      reasoning: 'Few conflicts, cheap checks: batches of three.',
    });
    expect(m.timeline[2]).toMatchObject({ title: 'recovery: retry-specific', conflicts: ['2-3'] });
  });

  it('shows no hand-off once the run is done, even when an older one is left in the state', () => {
    const snap = syntheticSnapshot({ status: 'done' });
    snap.state.handoff = {
      reason: 'needs the person',
      files: ['/repo/wt/resolve-5-3/src/lib.c'],
      commands: ['cd /repo/wt/resolve-5-3', 'splintercat continue'],
      where: '/repo/wt/resolve-5-3',
      conflicts: [],
    };
    expect(buildReportModel(snap, { now }).run.handoff).toBeNull();
    const open = syntheticSnapshot();
    expect(buildReportModel(open, { now }).run.handoff).toMatchObject({ reason: 'needs the person' });
  });

  it('counts every check the journal saw finish, also those the state does not keep, in the order they ran', () => {
    const snap = syntheticSnapshot();
    const kept = snap.state.checks.length;
    const side = {
      ...snap.state.checks[2]!,
      cell: { i1: 5, i2: 0 },
      logFile: '/repo/.splintercat/logs/build-side.log',
      at: '2026-01-02T03:00:20.500Z',
    };
    snap.events.push({ seq: 99, ts: side.at, type: 'check_finished', check: side });
    const m = buildReportModel(snap, { now });
    expect(m.checks).toHaveLength(kept + 1);
    expect(m.checks.map((c) => c.logFile)).toContain(side.logFile);
    expect(m.checks.map((c) => c.index)).toEqual([...Array(kept + 1).keys()]);
    expect(m.checks.map((c) => Date.parse(c.at))).toEqual(
      [...m.checks.map((c) => Date.parse(c.at))].sort((a, b) => a - b),
    );
    // A check the state keeps is not counted twice.
    snap.events.push({ seq: 100, ts: side.at, type: 'check_finished', check: snap.state.checks[0]! });
    expect(buildReportModel(snap, { now }).checks).toHaveLength(kept + 1);
  });

  it('marks a conflict settled by a file-level choice of a person as H', () => {
    const snap = syntheticSnapshot();
    const c = snap.state.conflicts.find((x) => x.id === '1-1')!;
    c.files = [{ path: 'gone.txt', kind: 'modify/delete', hunks: [], decidedBy: 'person' }];
    expect(buildReportModel(snap, { now }).grid!.marks.find((x) => x.conflict === '1-1')).toMatchObject({
      rung: 'person',
    });
  });

  it('folds identical decisions in a row into one entry that says how many times, and names the files of a hand-off', () => {
    const snap = syntheticSnapshot();
    const last = snap.events.at(-1)!;
    const human = (seq: number, file: string) => ({
      seq,
      ts: last.ts,
      type: 'person_needed' as const,
      reason: 'needs the person',
      files: [file],
      commands: ['splintercat continue'],
    });
    snap.events.push(
      human(101, '/r/wt/resolve-5-3/a.txt'),
      human(102, '/r/wt/resolve-5-3/a.txt'),
      human(103, '/r/wt/resolve-6-3/b.txt'),
    );
    const humans = buildReportModel(snap, { now }).timeline.filter((e) => e.kind === 'handoff');
    expect(humans.map((e) => [e.title, e.times])).toEqual([
      ['the person is needed: src/lib.c', 1],
      ['the person is needed: a.txt', 2],
      ['the person is needed: b.txt', 1],
    ]);
    expect(humans[1]!.conflicts).toEqual(['5-3']);
  });

  it('joins each conflict with its commits, hunks, diff, transcripts, usage and checks', () => {
    const m = buildReportModel(syntheticSnapshot(), { now });
    const c = m.conflicts.find((x) => x.id === '2-3')!;
    expect(c.forkCommit?.subject).toBe('fork commit 2');
    expect(c.upstreamCommit?.subject).toBe('upstream commit 3');
    expect(c.files[0]?.conflictHunks[0]).toMatchObject({ ours: 'int total(int a);\n', base: 'int total();\n' });
    expect(c.resolution?.diff).toContain('+int total(int a, int b);');
    expect(c.transcripts).toHaveLength(1);
    expect(c.transcripts[0]).toMatchObject({
      modelId: 'scripted-model',
      ok: true,
      reasoning: ['Both sides add a parameter; keep both.'],
    });
    expect(c.transcripts[0]?.toolCalls.map((t) => t.tool)).toEqual(['view_conflict', 'resolve_conflict']);
    expect(c.usage).toMatchObject({ calls: 1, inputTokens: 12000 });
    expect(m.conflicts.map((x) => x.id)).toEqual(['1-1', '2-3', '3-2', '4-4', '5-3']);
    expect(m.conflicts[0]?.checks).toEqual([1]);
  });

  it('shows the check in progress and the elapsed time only while a live process runs it', () => {
    const snap = syntheticSnapshot();
    snap.state.status = 'running';
    snap.events.push({
      seq: 99,
      ts: '2026-01-02T03:09:30.000Z',
      type: 'check_started',
      name: 'test',
      cell: { i1: 2, i2: 2 },
      attempt: 2,
    });
    expect(buildReportModel(snap, { now }).currentCheck).toBeNull();
    const live = buildReportModel({ ...snap, live: true }, { now });
    expect(live.currentCheck).toEqual({
      name: 'test',
      cell: '2-2',
      attempt: 2,
      startedAt: '2026-01-02T03:09:30.000Z',
      elapsedMs: 30_000,
    });
    expect(live.run).toMatchObject({ endedAt: null, elapsedMs: 10 * 60_000 });
    expect(buildReportModel(syntheticSnapshot(), { now }).run).toMatchObject({
      endedAt: '2026-01-02T03:00:30.000Z',
      elapsedMs: 30_000,
    });
  });
});
