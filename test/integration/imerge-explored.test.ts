import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/index.js';
import { imergeEngines } from '../../src/workflow/imerge-adapter.js';
import { chainRepo, crossRepo } from '../fixtures/workflow/chain-repo.js';
import type { TestRepo } from '../helpers/git-repo.js';
import { testGitEnv } from '../helpers/git-repo.js';

async function engineOf(repo: TestRepo) {
  const git = new Git({ cwd: repo.dir, env: testGitEnv });
  onTestFinished(() => git.close());
  const [forkTip, upstreamTip] = [await git.resolve('main'), await git.resolve('upstream')];
  return imergeEngines(git, 1).open({
    ...{ name: 'up', forkTip, upstreamTip, branch: 'main' },
    ...{ goal: 'merge', firstParent: true },
  });
}

describe('the explored part of the grid, row by row', () => {
  it('is the whole grid once it merges: an outlined rectangle counts inside, though only its edges are merged', async () => {
    // Both sides make the same changes: every cell merges, and one outline covers the grid.
    const engine = await engineOf(
      chainRepo(
        5,
        (k) => `v${k}`,
        (k) => `v${k}`,
      ),
    );
    expect(await engine.autofill()).toEqual([]);
    expect(engine.filledCells()).toEqual([5, 5, 5, 5, 5]);
  });

  it('stops at the frontier: the cells before the blocked ones, each row as far as a later row reaches', async () => {
    // Conflicts on the anti-diagonal: 1-3, 2-2 and 3-1.
    const engine = await engineOf(
      crossRepo(
        3,
        (k) => `F${k}`,
        (k) => `U${k}`,
      ),
    );
    expect(await engine.autofill()).toHaveLength(3);
    expect(engine.filledCells()).toEqual([2, 1, 0]);
  });
});
