import { describe, expect, it } from 'vitest';
import { strategyPolicy } from './planner-policy.js';
import type { MergeContext } from './planner-types.js';

const context: MergeContext = {
  source_ref: 'upstream',
  target_branch: 'main',
  num_source_commits: 500,
  num_target_commits: 432,
  estimated_conflicts: 331,
  available_strategies: ['per_conflict', 'batch', 'optimistic'],
  default_batch_size: 8,
};

describe('the offline strategy policy', () => {
  it("names the basis of the count it rests on, so the tips' groups are not read as the grid's count", () => {
    const tips = strategyPolicy({ ...context, conflicts_basis: 'tips' });
    expect(tips.strategy).toBe('batch');
    expect(tips.reasoning).toBe(
      '331 conflict(s) expected (the groups a plain merge of the tips conflicts in; the grid may meet more) over 932 commits: check in batches to keep failures isolated.',
    );
    const grid = strategyPolicy({
      ...context,
      estimated_conflicts: 120,
      conflicts_basis: 'grid',
      predictions: [{ strategy: 'per_conflict', batchSize: null, ms: 60_000, checks: 120 }],
    });
    expect(grid.reasoning).toMatch(
      /^120 conflict\(s\) left by the grid explored so far; predicted check time per_conflict/,
    );
  });
});
