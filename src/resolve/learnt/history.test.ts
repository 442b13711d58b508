import { describe, expect, it } from 'vitest';
import { Git } from '../../git/index.js';
import { forkWithMerges } from '../../../test/fixtures/resolve/history.js';
import { learnHistory } from './history.js';

describe('learnHistory', () => {
  it('stops replaying when the time budget runs out: the most recent merges are read, the older left out', async () => {
    const repo = forkWithMerges(3);
    const git = new Git({ cwd: repo.dir });
    try {
      // Each look at the clock is a second later: the budget of 1.5 s allows the first merge only.
      let clock = 0;
      const reads: string[] = [];
      const first = await learnHistory(git, 'HEAD', {
        limit: 10,
        budgetMs: 1500,
        now: () => (clock += 1000),
        onRead: (done, total) => reads.push(`${done} of ${total}`),
      });
      expect(first).toMatchObject({ merges: 1, replayed: 1, leftOut: 2 });
      expect(reads).toEqual(['1 of 3']);
      expect(first.hunks.map((h) => h.choice)).toEqual(['theirs']);
      // The merge read is remembered: it costs nothing the next time, and the budget goes to the older ones.
      clock = 0;
      const second = await learnHistory(git, 'HEAD', { limit: 10, budgetMs: 1500, now: () => (clock += 1000) });
      expect(second).toMatchObject({ merges: 2, replayed: 1, leftOut: 1 });
      const all = await learnHistory(git, 'HEAD', { limit: 10 });
      expect(all).toMatchObject({ merges: 3, replayed: 1, leftOut: 0 });
      expect(new Set(all.hunks.map((h) => h.merge)).size).toBe(3);
    } finally {
      git.close();
    }
  });
});
