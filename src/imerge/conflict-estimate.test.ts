import { describe, expect, it } from 'vitest';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { expectedConflicts, tipMerge } from './conflict-estimate.js';

describe('tipMerge: expected conflicts', () => {
  it("groups the tips' conflicted paths by the commits that touch them: one group per expected conflict", async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.c': 'a\n', 'a_test.c': 'ta\n', 'b.c': 'b\n', 'c.c': 'c\n' });
    repo.branch('upstream');
    repo.commit('fork: a and its test', { 'a.c': 'a fork\n', 'a_test.c': 'ta fork\n' });
    repo.commit('fork: b', { 'b.c': 'b fork\n' });
    repo.commit('fork: c', { 'c.c': 'c fork\n' });
    repo.checkout('upstream');
    repo.commit('upstream: a and its test', { 'a.c': 'a up\n', 'a_test.c': 'ta up\n' });
    repo.commit('upstream: b', { 'b.c': 'b up\n' });
    repo.commit('upstream: unrelated', { 'd.c': 'd\n' });
    repo.checkout('main');
    const { groups } = await tipMerge(repo.git, 'main', 'upstream');
    expect(groups.map((g) => [...g].sort())).toEqual([['a.c', 'a_test.c'], ['b.c']]);
  });

  it('finds nothing when the tips merge cleanly', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.c': 'a\n' });
    repo.branch('upstream');
    repo.commit('fork', { 'b.c': 'b\n' });
    expect(await tipMerge(repo.git, 'main', 'upstream')).toEqual({ groups: [], lowerBound: { files: 0, hunks: 0 } });
  });
});

describe('expectedConflicts', () => {
  it("counts the known conflicts and the tips' groups none of them touched, never fewer than the tips' groups", () => {
    const groups = [['a.c', 'a_test.c'], ['b.c'], ['c.c']];
    expect(expectedConflicts(groups, [])).toBe(3);
    expect(expectedConflicts(groups, [['a.c']])).toBe(3);
    // Two conflicts in a.c (the file was changed again on both sides), none seen in b.c or c.c yet.
    expect(expectedConflicts(groups, [['a.c'], ['a_test.c'], ['x.c']])).toBe(5);
  });
});
