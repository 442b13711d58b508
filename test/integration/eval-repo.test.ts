import { describe, expect, it } from 'vitest';
import { mineMerges, runEval, selectRules } from '../../src/resolve/index.js';
import { historyWithKnownMerges } from '../fixtures/resolve/history.js';

describe('eval --repo mining', () => {
  it('replays past merges and scores the ladder against the merge commits', async () => {
    const repo = historyWithKnownMerges();
    const mined = await mineMerges(repo.git);
    expect(mined).toMatchObject({ mergesSeen: 4, mergesConflicting: 3, mergesCrissCross: 0, skipped: [] });
    expect(mined.cases.map((c) => c.path).sort()).toEqual(['a.txt', 'b.txt', 'm.txt']);
    const m = mined.cases.find((c) => c.path === 'm.txt')!;
    expect(m.theirs).toBeNull();
    expect(m.resolved).toBeNull();

    const report = await runEval(repo.dir, mined.cases, { git: repo.git, rules: selectRules() });
    expect(report.cases).toBe(3);
    expect(report.hunksSeen).toBe(2);
    expect(report.ladder).toEqual({
      resolved: 1,
      exact: 0,
      whitespaceMatch: 1,
      equal: 1,
      orderOnly: 0,
      wrong: 0,
      unaligned: 0,
      sidesDropped: 0,
    });
    expect(report.byRule['whitespace-only']?.resolved).toBe(1);
    expect(report.files).toEqual({
      seen: 3,
      resolved: 1,
      exact: 0,
      whitespaceMatch: 1,
      equal: 1,
      orderOnly: 0,
      wrong: 0,
      outsideEdited: 0,
      dropsKept: 0,
    });
    // remerge-words alone "resolves" nothing here: the real conflict is one word on both sides
    expect(report.standalone['remerge-words']?.resolved).toBe(0);
  });

  it('honours --limit (conflicting merges, newest first)', async () => {
    const repo = historyWithKnownMerges();
    const mined = await mineMerges(repo.git, { limit: 1 });
    expect(mined.mergesConflicting).toBe(1);
    expect(mined.cases.map((c) => c.path)).toEqual(['m.txt']);
  });
});
