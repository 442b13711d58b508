import { describe, expect, it } from 'vitest';
import { Git } from '../../git/index.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { learnHistory } from './history.js';

/** A fork with `n` merges of upstream, each conflicting on `notes.txt` and settled with upstream's line. */
function forkWithMerges(n: number): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'notes.txt': 'notes 0\n' });
  for (let k = 1; k <= n; k++) {
    repo.branch(`up${k}`);
    repo.commit(`fork ${k}`, { 'notes.txt': `fork notes ${k}\n` });
    repo.checkout(`up${k}`);
    repo.commit(`upstream ${k}`, { 'notes.txt': `upstream notes ${k}\n` });
    repo.checkout('main');
    repo.sh('merge', '-q', `up${k}`, '--no-ff', '--strategy-option=theirs', '-m', `merge ${k}`);
  }
  return repo;
}

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
