import { describe, expect, it } from 'vitest';
import { strategyPolicy } from '../../src/agents/planner-policy.js';
import { estimateConflicts } from '../../src/imerge/conflict-estimate.js';
import { TestRepo } from '../helpers/git-repo.js';

describe('a lower bound of the conflicts: a plain merge of the two tips', () => {
  it('counts conflicted files and their conflict blocks; a modify/delete counts one', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': '1\n2\n3\n4\n5\n6\n7\n8\n9\n', 'gone.txt': 'x\n', 'calm.txt': 'c\n' });
    repo.branch('up');
    const fork = repo.commit('fork', { 'a.txt': 'F\n2\n3\n4\n5\n6\n7\n8\nF\n', 'gone.txt': 'fork edit\n' });
    repo.checkout('up');
    const up = repo.commit('up', { 'a.txt': 'U\n2\n3\n4\n5\n6\n7\n8\nU\n', 'gone.txt': null, 'calm.txt': 'u\n' });
    expect(await estimateConflicts(repo.git, fork, up)).toEqual({ files: 2, hunks: 3 });
    expect(await estimateConflicts(repo.git, fork, fork)).toEqual({ files: 0, hunks: 0 });
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
