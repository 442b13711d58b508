import { describe, expect, it } from 'vitest';
import { RunStore } from '../../src/store/index.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import type { GridEngine } from '../../src/workflow/ports.js';
import { reopenRun } from '../../src/workflow/setup.js';
import { chainRepo } from '../fixtures/workflow/chain-repo.js';
import { chainContext, startChainRun } from '../fixtures/workflow/chain-run.js';

/**
 * The process "dies" in finalize right after the merge commit reached the branch: before the
 * merge's refs were removed (`refsLeft`), or after. Nothing after that point is saved, so
 * `continue` re-runs finalize on a branch that already holds the merge.
 */
async function killedInFinalize(refsLeft: boolean) {
  // contained-change takes upstream's larger edit: the merged tree differs from the fork's.
  const repo = chainRepo(
    2,
    (k) => `x${k}`,
    (k) => `x${k} y`,
  );
  const fork = repo.sh('rev-parse', 'main');
  const { ctx } = await chainContext(repo, null, { merge: { strategy: 'optimistic' } });
  const open = ctx.engines.open.bind(ctx.engines);
  ctx.engines = {
    ...ctx.engines,
    discard: ctx.engines.discard.bind(ctx.engines),
    async open(options): Promise<GridEngine> {
      const engine = await open(options);
      return Object.assign(Object.create(engine) as GridEngine, {
        async finish(): Promise<string> {
          const refs = repo.sh('for-each-ref', '--format=%(refname) %(objectname)', 'refs/imerge/up/');
          const commit = await engine.finish();
          if (refsLeft) for (const line of refs.split('\n')) repo.sh('update-ref', ...line.split(' '));
          throw new Error(`killed after ${commit} reached the branch`);
        },
      });
    },
  };
  const store = await RunStore.forRepo(repo.git);
  const created = startChainRun(store, repo);
  try {
    expect((await driveRun(created.run, created.state, ctx)).kind).toBe('failed');
  } finally {
    created.run.close();
  }
  const merged = repo.sh('rev-parse', 'main');
  expect(merged).not.toBe(fork);
  // The working tree was not brought forward before the "kill".
  expect(repo.sh('status', '--porcelain', '--untracked-files=no')).not.toBe('');

  const resumed = reopenRun(store, 'up');
  try {
    const { ctx: fresh } = await chainContext(repo, null, { merge: { strategy: 'optimistic' } });
    const outcome = await driveRun(resumed.run, { ...resumed.state, status: 'running', statusReason: null }, fresh);
    expect(outcome.kind).toBe('done');
    expect(outcome.state.finalCommit).toBe(merged);
    expect(resumed.run.journal.read().entries.filter((e) => e.type === 'finalized')).toHaveLength(1);
  } finally {
    resumed.run.close();
  }
  expect(repo.sh('rev-parse', 'main')).toBe(merged);
  expect(repo.sh('rev-list', '--parents', '-n', '1', 'main').split(' ').slice(1)).toEqual([
    fork,
    repo.sh('rev-parse', 'upstream'),
  ]);
  expect(repo.sh('for-each-ref', 'refs/imerge/')).toBe('');
  expect(repo.sh('status', '--porcelain', '--untracked-files=no')).toBe('');
}

describe('a kill inside finalize, then continue', () => {
  it('after the branch moved, before the merge refs were removed: the same merge commit, refs gone, tree updated', async () => {
    await killedInFinalize(true);
  });

  it('after the refs were removed too: the same merge commit, tree updated', async () => {
    await killedInFinalize(false);
  });
});
