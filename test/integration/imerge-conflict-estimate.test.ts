import { describe, expect, it } from 'vitest';
import { strategyPolicy } from '../../src/agents/planner-policy.js';
import { tipMerge } from '../../src/imerge/conflict-estimate.js';
import { Git } from '../../src/git/index.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { gitSpy } from '../helpers/git-spy.js';

describe('a lower bound of the conflicts: a plain merge of the two tips', () => {
  it('counts conflicted files and their conflict blocks; a modify/delete counts one', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': '1\n2\n3\n4\n5\n6\n7\n8\n9\n', 'gone.txt': 'x\n', 'calm.txt': 'c\n' });
    repo.branch('up');
    const fork = repo.commit('fork', { 'a.txt': 'F\n2\n3\n4\n5\n6\n7\n8\nF\n', 'gone.txt': 'fork edit\n' });
    repo.checkout('up');
    const up = repo.commit('up', { 'a.txt': 'U\n2\n3\n4\n5\n6\n7\n8\nU\n', 'gone.txt': null, 'calm.txt': 'u\n' });
    expect((await tipMerge(repo.git, fork, up)).lowerBound).toEqual({ files: 2, hunks: 3 });
    expect((await tipMerge(repo.git, fork, fork)).lowerBound).toEqual({ files: 0, hunks: 0 });
  });

  it('derives the expected conflicts and the lower bound from one merge-tree of the tips', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.c': 'a\n', 'a_test.c': 'ta\n', 'b.c': '1\n2\n3\n4\n5\n6\n7\n8\n9\n' });
    repo.branch('up');
    repo.commit('fork', { 'a.c': 'a fork\n', 'a_test.c': 'ta fork\n' });
    const forkB = repo.commit('fork b', { 'b.c': 'F\n2\n3\n4\n5\n6\n7\n8\nF\n' });
    repo.checkout('up');
    repo.commit('up', { 'a.c': 'a up\n', 'a_test.c': 'ta up\n' });
    const up = repo.commit('up b', { 'b.c': 'U\n2\n3\n4\n5\n6\n7\n8\nU\n' });
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    try {
      const merge = await tipMerge(git, forkB, up);
      expect(merge.groups.map((g) => [...g].sort())).toEqual([['a.c', 'a_test.c'], ['b.c']]);
      expect(merge.lowerBound).toEqual({ files: 3, hunks: 4 });
      expect(spy.calls().filter((c) => c.startsWith('merge-tree '))).toHaveLength(1);
    } finally {
      git.close();
    }
  });

  it('the offline planner says the bound instead of "unknown", and still checks each conflict on its own', () => {
    const ctx = {
      source_ref: 'upstream',
      target_branch: 'fork',
      num_source_commits: 13,
      num_target_commits: 10,
      estimated_conflicts: null,
      available_strategies: ['optimistic', 'batch', 'per_conflict'] as const,
      default_batch_size: 10,
    };
    const bounded = strategyPolicy({
      ...ctx,
      available_strategies: [...ctx.available_strategies],
      conflicts_lower_bound: { files: 3, hunks: 7 },
    });
    expect(bounded).toMatchObject({ strategy: 'per_conflict' });
    expect(bounded.reasoning).toBe(
      'A plain merge of the two tips conflicts in 3 file(s) (7 hunk(s)): at least that many to resolve, and cells of the grid may conflict on the way, so the safest strategy is used: each conflict checked on its own.',
    );
    const clean = strategyPolicy({
      ...ctx,
      available_strategies: [...ctx.available_strategies],
      conflicts_lower_bound: { files: 0, hunks: 0 },
    });
    expect(clean.reasoning).toMatch(/^A plain merge of the two tips is clean; cells of the grid may still conflict/);
  });
});

describe('the offline planner with predicted check times', () => {
  const ctx = {
    source_ref: 'upstream',
    target_branch: 'fork',
    num_source_commits: 60,
    num_target_commits: 40,
    estimated_conflicts: 12,
    available_strategies: ['optimistic', 'batch', 'per_conflict'] as Array<'optimistic' | 'batch' | 'per_conflict'>,
    default_batch_size: 10,
  };
  const minutes = (n: number): number => n * 60_000;

  it('checks each resolution on its own where that costs at most 5 minutes more than the cheapest', () => {
    const decision = strategyPolicy({
      ...ctx,
      predictions: [
        { strategy: 'batch', batchSize: 3, ms: minutes(1), checks: 5 },
        { strategy: 'per_conflict', batchSize: null, ms: minutes(3), checks: 12 },
      ],
    });
    expect(decision).toMatchObject({ strategy: 'per_conflict', batch_size: null });
    expect(decision.reasoning).toMatch(
      /at most 5 min more than the cheapest, so every resolution is checked on its own/,
    );
  });

  it('takes the cheapest where checking each resolution would cost more than that', () => {
    const decision = strategyPolicy({
      ...ctx,
      predictions: [
        { strategy: 'batch', batchSize: 3, ms: minutes(40), checks: 5 },
        { strategy: 'per_conflict', batchSize: null, ms: minutes(90), checks: 12 },
      ],
    });
    expect(decision).toMatchObject({ strategy: 'batch', batch_size: 3 });
    expect(decision.reasoning).toMatch(/: the cheapest\.$/);
  });
});
