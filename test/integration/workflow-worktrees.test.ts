import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configSchema } from '../../src/config/index.js';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/index.js';
import { WorktreePool } from '../../src/workflow/worktrees.js';
import { runWorktreesDir } from '../../src/workflow/worktree-paths.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { gitSpy } from '../helpers/git-spy.js';

describe('WorktreePool', () => {
  it("never resets a person's worktree: the same merge presented again keeps their edit; another merge saves it to a ref first", async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': 'a\n' });
    repo.branch('up');
    const ours = repo.commit('ours', { 'a.txt': 'a ours\n' });
    const ours2 = repo.commit('ours 2', { 'b.txt': 'b\n' });
    repo.checkout('up');
    const theirs = repo.commit('theirs', { 'a.txt': 'a theirs\n' });
    repo.checkout('main');
    const pool = new WorktreePool(repo.git, join(repo.dir, '.git', 'splintercat', 'test', 'worktrees'));
    const { path } = await pool.presentMerge('resolve-1-1', ours, theirs);
    expect(readFileSync(join(path, 'a.txt'), 'utf8')).toMatch(/<<<<<<< /);
    await pool.protect('resolve-1-1', ours, theirs);
    writeFileSync(join(path, 'a.txt'), 'a by a person\n');

    const again = await pool.presentMerge('resolve-1-1', ours, theirs);
    expect(readFileSync(join(path, 'a.txt'), 'utf8')).toBe('a by a person\n');
    expect(again.unmerged).toEqual(['a.txt']);

    await pool.presentMerge('resolve-1-1', ours2, theirs);
    expect(readFileSync(join(path, 'a.txt'), 'utf8')).toMatch(/<<<<<<< /);
    expect(repo.sh('show', 'refs/splintercat/saved/resolve-1-1:a.txt')).toBe('a by a person');
  });

  it('creates many worktrees at once (parallel conflict resolution) without git racing itself', async () => {
    const repo = TestRepo.create();
    const base = repo.commit('base', { 'a.txt': 'a\n' });
    const pool = new WorktreePool(repo.git, join(repo.dir, '.git', 'splintercat', 'test', 'worktrees'));
    // Unserialized, concurrent `worktree prune` + `worktree add` fail now and then ("could not open
    // .git/worktrees/X/locked", "failed to read .git/worktrees/X/commondir"): several rounds to catch it.
    for (let round = 0; round < 6; round++) {
      const ids = Array.from({ length: 8 }, (_, k) => `resolve-${round}-${k}`);
      const paths = await Promise.all(ids.map((id) => pool.checkout(id, base)));
      expect(paths).toEqual(ids.map((id) => pool.path(id)));
      for (const path of paths) expect(existsSync(join(path, 'a.txt'))).toBe(true);
    }
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(1 + 6 * 8);
  });

  it('presents a conflict with its unmerged paths and their stages, listed once', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    repo.branch('up');
    const ours = repo.commit('ours', { 'a.txt': 'a ours\n', 'b.txt': null, 'c.txt': 'c ours\n' });
    repo.checkout('up');
    const theirs = repo.commit('theirs', { 'a.txt': 'a theirs\n', 'b.txt': 'b theirs\n', 'c.txt': 'c\n' });
    repo.checkout('main');
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    const pool = new WorktreePool(git, join(repo.dir, '.git', 'splintercat', 'test', 'worktrees'));
    const { path, unmerged, entries } = await pool.presentMerge('resolve-1-1', ours, theirs);
    expect(spy.calls().map((c) => c.split(' ').slice(0, 2).join(' '))).toEqual([
      'worktree prune',
      'worktree add',
      // the repository's common directory, once: where its record of the worktree is
      'rev-parse --path-format=absolute',
      '-c merge.conflictStyle=diff3',
      'ls-files -u',
      // what is there outside the conflict's files, as presented (handoff/snapshot.ts)
      'add -A',
      // what add could not settle (a conflicted submodule) is left out of that tree
      'ls-files -z',
      'write-tree',
      'update-ref refs/worktree/splintercat/presented',
    ]);
    const wt = new TestRepo(path);
    expect(unmerged).toEqual(wt.sh('diff', '--name-only', '--diff-filter=U').split('\n'));
    expect(unmerged).toEqual(['a.txt', 'b.txt']);
    expect(entries.map((e) => [e.path, Boolean(e.base), Boolean(e.ours), Boolean(e.theirs)])).toEqual([
      ['a.txt', true, true, true],
      ['b.txt', true, false, true],
    ]);
    expect(entries[0]?.theirs?.oid).toBe(repo.sh('rev-parse', `${theirs}:a.txt`));
  });

  it('lives beside the repository by default (no dot-directory), keeps a legacy run under .git, and removing a run removes its directory and the parent when empty', async () => {
    const repo = TestRepo.create();
    const base = repo.commit('base', { 'a.txt': 'a\n' });
    const config = configSchema.parse({ target: { workdir: repo.dir } });
    const sibling = join(dirname(repo.dir), 'repo-splintercat');
    const gitDir = join(repo.dir, '.git');
    expect(runWorktreesDir(config, gitDir, 'up')).toBe(join(sibling, 'up'));
    expect(runWorktreesDir({ ...config, merge: { ...config.merge, worktrees: '/elsewhere/wt' } }, gitDir, 'up')).toBe(
      '/elsewhere/wt/up',
    );
    mkdirSync(join(gitDir, 'splintercat', 'old', 'worktrees'), { recursive: true });
    expect(runWorktreesDir(config, gitDir, 'old')).toBe(join(gitDir, 'splintercat', 'old', 'worktrees'));

    const up = new WorktreePool(repo.git, runWorktreesDir(config, gitDir, 'up'));
    const other = new WorktreePool(repo.git, runWorktreesDir(config, gitDir, 'other'));
    const path = await up.checkout(up.conflictId({ i1: 1, i2: 1 }), base);
    expect(path.split('/').filter((part) => part.startsWith('.'))).toEqual([]);
    await other.checkout(other.checkId, base);
    await up.removeRun([{ i1: 1, i2: 1 }]);
    expect(existsSync(join(sibling, 'up'))).toBe(false);
    expect(existsSync(join(sibling, 'other', 'check'))).toBe(true);
    await other.removeRun([]);
    expect(existsSync(sibling)).toBe(false);
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(1);
  });
});
