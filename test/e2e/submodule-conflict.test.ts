import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TestRepo } from '../helpers/git-repo.js';
import { forkAndUpstream, handedWorktrees, runCli } from '../fixtures/resolve/cli.js';

/** Commit ids a submodule points at (a gitlink records the id only: the commits need not exist here). */
const BASE = '1111111111111111111111111111111111111111';
const BUMPED = '2222222222222222222222222222222222222222';

const OTHER = '3333333333333333333333333333333333333333';
/** A commit neither side has: the maintainer's own, with both sides' changes. */
const NEWER = '4444444444444444444444444444444444444444';

/** A fork that bumps its submodule lib/sub while upstream removes it (or, `both`, bumps it elsewhere). */
function submoduleRepo(upstream: 'removes' | 'bumps' = 'removes'): TestRepo {
  return forkAndUpstream(
    {
      change: (repo) => {
        repo.commit('base', { 'x.txt': 'x\n' });
        repo.sh('update-index', '--add', '--cacheinfo', `160000,${BASE},lib/sub`);
      },
      subject: 'add the submodule',
    },
    {
      change: (repo) => repo.sh('update-index', '--cacheinfo', `160000,${BUMPED},lib/sub`),
      subject: 'fork: bump the submodule',
    },
    {
      change: (repo) =>
        upstream === 'removes'
          ? repo.sh('rm', '-q', '--cached', 'lib/sub')
          : repo.sh('update-index', '--cacheinfo', `160000,${OTHER},lib/sub`),
      subject: `upstream: ${upstream === 'removes' ? 'drop' : 'bump'} the submodule`,
    },
  );
}

/** `merge up`, which stops at the submodule's hand-off: what it printed, and the worktree it handed. */
async function handedMerge(repo: { dir: string }): Promise<{ out: string; worktree: string }> {
  const merged = await runCli(['merge', 'up'], repo.dir);
  expect(merged.code, merged.stderr).toBe(3);
  const [worktree] = await handedWorktrees(repo.dir);
  expect(worktree).toBeDefined();
  return { out: merged.stdout + merged.stderr, worktree: worktree! };
}

describe('a submodule conflict', () => {
  it(
    'prints a command that keeps the commit, says what is left when untouched, and takes it',
    { timeout: 120_000 },
    async () => {
      const repo = submoduleRepo();
      const { out, worktree } = await handedMerge(repo);
      // `git add` of an unpopulated submodule's directory fails: the side is kept by `take`.
      expect(out).toContain(
        "Keep the deletion: `git rm -q -- lib/sub`; or keep the fork side's submodule commit: `splintercat take ours lib/sub`",
      );
      expect(out).not.toContain('git add -- lib/sub');

      // Untouched: the run says what is left, never an internal error about a directory.
      const again = await runCli(['continue'], repo.dir);
      expect(again.code).toBe(3);
      expect(again.stdout + again.stderr).not.toMatch(/EISDIR|internal error/);
      expect(again.stdout + again.stderr).toContain(
        "lib/sub is a submodule still unmerged: run `git rm -q -- lib/sub` to keep the deletion or `splintercat take ours lib/sub` to keep the fork side's commit",
      );

      const take = await runCli(['take', 'ours', 'lib/sub'], worktree);
      expect(take.code, take.stderr).toBe(0);
      const done = await runCli(['continue'], repo.dir);
      expect(done.code, done.stderr).toBe(0);
      expect(repo.sh('ls-tree', 'main', 'lib/sub')).toBe(`160000 commit ${BUMPED}\tlib/sub`);
    },
  );

  it(
    'both sides moved it: each side is one take away, and the one taken is what the merge records',
    { timeout: 120_000 },
    async () => {
      const repo = submoduleRepo('bumps');
      const { out, worktree } = await handedMerge(repo);
      expect(out).toContain(
        "Take the fork side's version: `splintercat take ours lib/sub`; or the upstream side's: `splintercat take theirs lib/sub`",
      );
      expect(out).not.toContain('git checkout --ours -- lib/sub');
      expect(out).toContain(
        'or another commit (COMMIT: its full id): `git update-index --cacheinfo 160000,COMMIT,lib/sub`',
      );
      const take = await runCli(['take', 'theirs', 'lib/sub'], worktree);
      expect(take.code, take.stderr).toBe(0);
      expect(take.stdout).toContain(`kept the upstream side's submodule commit ${OTHER.slice(0, 12)}`);
      const done = await runCli(['continue'], repo.dir);
      expect(done.code, done.stderr).toBe(0);
      expect(repo.sh('ls-tree', 'main', 'lib/sub')).toBe(`160000 commit ${OTHER}\tlib/sub`);
    },
  );

  it(
    'both sides moved it: a commit neither side has is recorded as the printed command sets it',
    { timeout: 120_000 },
    async () => {
      const repo = submoduleRepo('bumps');
      const { worktree } = await handedMerge(repo);
      // The printed command, COMMIT filled in with the commit the maintainer wants.
      execFileSync('sh', ['-c', `git update-index --cacheinfo 160000,${NEWER},lib/sub`], { cwd: worktree });
      const done = await runCli(['continue'], repo.dir);
      expect(done.code, done.stdout + done.stderr).toBe(0);
      expect(repo.sh('ls-tree', 'main', 'lib/sub')).toBe(`160000 commit ${NEWER}\tlib/sub`);
    },
  );
});
