import { describe, expect, it } from 'vitest';
import { syntheticSnapshot } from '../../test/fixtures/report/synthetic-run.js';
import { buildReportModel } from './build-model.js';
import { markedDiagram, renderStatusText, statusData } from './status-text.js';

const now = new Date('2026-01-02T03:10:00Z');

function rowOf(diagram: string, i2: number): string {
  // Rows follow the two header lines; the cells start after the 7-character row label.
  return (diagram.split('\n')[2 + i2] ?? '').slice(7, 7 + 7);
}

describe('status text', () => {
  it("draws git-imerge's diagram with a letter per rung, X for a failed check and # for the blocker", () => {
    const m = buildReportModel(syntheticSnapshot(), { now });
    const d = markedDiagram(m.grid!)!;
    expect(rowOf(d, 0)).toBe('*******');
    expect(rowOf(d, 1)[1]).toBe('R');
    expect(rowOf(d, 3)[2]).toBe('M');
    expect(rowOf(d, 2)[3]).toBe('C');
    expect(rowOf(d, 4)[4]).toBe('H');
    expect(rowOf(d, 3)[5]).toBe('#');
    expect(rowOf(d, 4)[5]).toBe('X');
    expect(d).toMatch(
      /C\/P\/G\/R\/S\/L\/M\/H = conflict resolved by cache \/ policy \/ regenerate \/ rule \/ syntax merge \/ learnt \/ model \/ person/,
    );
  });

  it('says what the edge is and what a cell the engine skipped by design is, not git-imerge\'s "no merge recorded"', () => {
    const d = markedDiagram(buildReportModel(syntheticSnapshot(), { now }).grid!)!;
    const key = d.slice(d.indexOf('Key:'));
    expect(key).toContain("* on row 0 and column 0 = the branches' own commits (the edges of the grid");
    expect(key).not.toContain('* = merge done manually');
    expect(key).not.toContain('no merge recorded');
    // the synthetic grid has unmerged cells inside and no manual merge apart from its conflicts
    expect(key).toContain('? = not merged, by design: the engine merges only the cells the result needs');
    expect(key).not.toContain('* (inside the grid)');
  });

  it('says phase, elapsed time, conflicts done and left by rung, the current check, attempts and cost by role', () => {
    const snap = syntheticSnapshot();
    snap.state.status = 'running';
    snap.events.push({
      seq: 99,
      ts: '2026-01-02T03:09:48.000Z',
      type: 'check_started',
      name: 'test',
      cell: { i1: 2, i2: 2 },
      attempt: 2,
    });
    const text = renderStatusText(buildReportModel({ ...snap, live: true }, { now }));
    expect(text).toMatch(/^Merge 'up': running/);
    expect(text).toMatch(/phase: resolve_conflicts; elapsed 10m 00s \(running\)/);
    expect(text).toMatch(
      /conflicts: 4 done, 1 left \(of 5\); hunks by rung: cache 1, policy 0, generated 0, rule 1, syntax 0, learnt 0, model 1, person 1; open 1/,
    );
    expect(text).toMatch(/current check: test on 2-2 \(attempt 2\), running for 12\.0s/);
    expect(text).toMatch(/attempts: 1; #1 batch, 4 resolved, check failed → retry-specific/);
    expect(text).toMatch(
      /resolver 2 calls 12,000\+900 tokens \$0\.0123; reviewer 1 calls 2,000\+100 tokens \$0\.0040; summarizer .*; cost \$0\.0373/,
    );
  });

  it('summarises a grid too large for a terminal', () => {
    const m = buildReportModel(syntheticSnapshot({ commits1: 2000, commits2: 500 }), { now });
    expect(markedDiagram(m.grid!)).toBeNull();
    expect(renderStatusText(m)).toMatch(/The grid \(2000 x 500\) is too large for the terminal/);
  });

  it('--json carries the same, keeping the fields earlier versions printed', () => {
    const data = statusData(buildReportModel(syntheticSnapshot({ status: 'done' }), { now }));
    expect(data).toMatchObject({
      name: 'up',
      status: 'done',
      finalCommit: expect.stringMatching(/^[0-9a-f]{40}$/),
      conflicts: { total: 5, left: 1, hunksByRung: { rule: 1 } },
    });
    expect(data).toHaveProperty('grid.diagram');
    expect(data).toHaveProperty('usage.total.costUsd');
  });
});
