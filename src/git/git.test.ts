import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRepo, tempDir, testGitEnv } from '../../test/helpers/git-repo.js';
import { gitSpy } from '../../test/helpers/git-spy.js';
import { Git } from './git.js';
import { GitError } from './git-error.js';
import { SplintercatError } from '../errors/index.js';

describe('Git', () => {
  it('resolves revisions and returns null for unknown ones', async () => {
    const repo = TestRepo.create();
    const c1 = repo.commit('one', { 'a.txt': 'a\n' });
    expect(await repo.git.revParse('main')).toBe(c1);
    expect(await repo.git.revParse('nope')).toBeNull();
    await expect(repo.git.resolve('nope')).rejects.toMatchObject({ code: 'unknown_revision' });
  });

  it('raises a typed GitError with argv, exit code and stderr', async () => {
    const repo = TestRepo.create();
    repo.commit('one');
    const error = await repo.git.run(['show', 'does-not-exist']).catch((e: unknown) => e);
    expect(GitError.isGitError(error)).toBe(true);
    const gitError = error as GitError;
    expect(gitError.argv).toEqual(['show', 'does-not-exist']);
    expect(gitError.gitExitCode).toBe(128);
    expect(gitError.stderr).toMatch(/unknown revision|bad revision|ambiguous argument/);
  });

  it("names git's fatal line in the message, not the progress printed before it", async () => {
    const repo = TestRepo.create();
    repo.commit('one');
    const error = (await repo.git
      .run(['worktree', 'add', '--detach', repo.dir, 'HEAD'])
      .catch((e: unknown) => e)) as GitError;
    expect(GitError.isGitError(error)).toBe(true);
    expect(error.what).toMatch(/failed with exit code 128: fatal: /);
  });

  it('returns exit codes listed as data', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'f.txt': 'x\n' });
    repo.branch('other');
    repo.commit('ours', { 'f.txt': 'ours\n' });
    repo.checkout('other');
    repo.commit('theirs', { 'f.txt': 'theirs\n' });
    const result = await repo.git.run(['merge-tree', '--write-tree', 'main', 'other'], { okExitCodes: [0, 1] });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('CONFLICT (content)');
  });

  it('computes merge bases and rev-lists', async () => {
    const repo = TestRepo.create();
    const base = repo.commit('base');
    repo.branch('side');
    const a = repo.commit('a');
    repo.checkout('side');
    const b = repo.commit('b');
    expect(await repo.git.mergeBase(a, b)).toBe(base);
    expect(await repo.git.revList([`${base}..${a}`])).toEqual([a]);
    expect(await repo.git.isAncestor(base, b)).toBe(true);
    expect(await repo.git.isAncestor(a, b)).toBe(false);
  });

  it('updates refs atomically and checks old values', async () => {
    const repo = TestRepo.create();
    const c1 = repo.commit('one');
    const c2 = repo.commit('two');
    await repo.git.updateRefs([
      { ref: 'refs/test/a', newOid: c1, oldOid: null },
      { ref: 'refs/test/b', newOid: c2, oldOid: null },
    ]);
    expect(await repo.git.forEachRef('refs/test/')).toEqual([
      { ref: 'refs/test/a', oid: c1 },
      { ref: 'refs/test/b', oid: c2 },
    ]);
    // A wrong old value fails the whole transaction: neither ref moves.
    await expect(
      repo.git.updateRefs([
        { ref: 'refs/test/a', newOid: c2, oldOid: c1 },
        { ref: 'refs/test/b', newOid: c1, oldOid: c1 },
      ]),
    ).rejects.toBeInstanceOf(GitError);
    expect(await repo.git.revParse('refs/test/a')).toBe(c1);
    await repo.git.deleteRef('refs/test/a', c1);
    expect(await repo.git.revParse('refs/test/a')).toBeNull();
  });

  it('lists dirty files and refuses an unclean tree with the file list', async () => {
    const repo = TestRepo.create();
    repo.commit('one', { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    expect(await repo.git.dirtyFiles()).toEqual([]);
    writeFileSync(join(repo.dir, 'a.txt'), 'changed\n');
    writeFileSync(join(repo.dir, 'untracked.txt'), 'u\n');
    expect(await repo.git.dirtyFiles()).toEqual(['a.txt']);
    expect(await repo.git.dirtyFiles({ includeUntracked: true })).toEqual(['a.txt', 'untracked.txt']);
    const error = await repo.git.assertClean('start a merge').catch((e: unknown) => e);
    expect(SplintercatError.isInstance(error) && error.code).toBe('worktree_dirty');
    expect((error as SplintercatError).why).toContain('a.txt');
  });

  it('reads objects through one long-lived cat-file process', async () => {
    const repo = TestRepo.create();
    const content = 'line one\nline two\n' + 'x'.repeat(100_000) + '\n';
    repo.commit('one', { 'big.txt': content, 'small.txt': 'small\n' });
    const [big, small, missing] = await Promise.all([
      repo.git.readBlobText('HEAD:big.txt'),
      repo.git.readBlobText('HEAD:small.txt'),
      repo.git.readObject('HEAD:nope.txt'),
    ]);
    expect(big).toBe(content);
    expect(small).toBe('small\n');
    expect(missing).toBeNull();
    const commit = await repo.git.readObject('HEAD');
    expect(commit?.type).toBe('commit');
    expect(commit?.content.toString()).toContain('one');
  });

  it("a worktree Git reads objects by id through its repository's cat-file process", async () => {
    const repo = TestRepo.create();
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    onTestFinished(() => git.close());
    repo.commit('one', { 'f.txt': 'main\n' });
    const path = join(tempDir(), 'wt');
    repo.sh('worktree', 'add', '-q', '--detach', path, 'HEAD');
    writeFileSync(join(path, 'f.txt'), 'worktree\n');
    execFileSync('git', ['-C', path, '-c', 'user.name=T', '-c', 'user.email=t@e', 'commit', '-qam', 'two']);
    const blob = repo.sh('rev-parse', 'HEAD:f.txt');

    const readers = (): number => spy.calls().filter((c) => c === 'cat-file --batch').length;
    expect(await git.readBlobText(blob)).toBe('main\n');
    const wt = git.at(path, { worktree: true });
    expect(await wt.readBlobText(blob)).toBe('main\n');
    expect(readers()).toBe(1);
    // Other specs are the worktree's own (its HEAD is not the main one), read by a reader of its own.
    expect(await wt.readBlobText('HEAD:f.txt')).toBe('worktree\n');
    expect(readers()).toBe(2);
    wt.close();
    // Closing the worktree's Git leaves the shared reader working.
    expect(await git.readBlobText(blob)).toBe('main\n');
    expect(readers()).toBe(2);
  });

  it('asks short questions through its shells, without a process of its own, and fails as run does', async () => {
    const repo = TestRepo.create();
    const c1 = repo.commit('one', { 'a.txt': 'a\n' });
    const c2 = repo.commit('two', { 'a.txt': 'b\n' });
    const git = new Git({ cwd: repo.dir, env: testGitEnv });
    onTestFinished(() => git.close());
    const run = vi.spyOn(git, 'run');
    expect(await git.revParse('main')).toBe(c2);
    expect(await git.revParse('nope')).toBeNull();
    expect(await git.isAncestor(c1, c2)).toBe(true);
    expect(await git.isAncestor(c2, c1)).toBe(false);
    expect(await git.forEachRef('refs/heads/')).toEqual([{ oid: c2, ref: 'refs/heads/main' }]);
    // Ref updates too, compare-and-swaps included: their transaction goes in as the command's input.
    await git.updateRef('refs/x/one', c1, null, 'made');
    await expect(git.updateRef('refs/x/one', c2, null)).rejects.toMatchObject({ gitExitCode: 128 });
    await expect(git.updateRef('refs/x/one', c2, c2)).rejects.toMatchObject({ gitExitCode: 128 });
    await git.updateRef('refs/x/one', c2, c1);
    expect(await git.revParse('refs/x/one')).toBe(c2);
    await git.deleteRef('refs/x/one', c2);
    expect(await git.revParse('refs/x/one')).toBeNull();
    // Input (through a file removed afterwards) and environment for one command.
    const hashed = await git.query(['hash-object', '--stdin'], { input: 'x\n' });
    expect(hashed.stdout).toBe('587be6b4c3f93f93c489c0111bba5596147a26cb\n');
    const ident = await git.query(['var', 'GIT_AUTHOR_IDENT'], {
      env: { GIT_AUTHOR_NAME: "O'Brien $HOME", GIT_AUTHOR_DATE: '@0 +0000' },
    });
    expect(ident.stdout).toMatch(/^O'Brien \$HOME <.*> 0 \+0000\n$/);
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith(`splintercat-input-${process.pid}-`))).toEqual([]);
    expect(run).not.toHaveBeenCalled();
    const error = await git.query(['show', 'does-not-exist']).catch((e: unknown) => e);
    expect(error).toMatchObject({ argv: ['show', 'does-not-exist'], gitExitCode: 128 });
    // Where the shell cannot say why, the command runs as `run` runs it, for its clear error.
    const gone = new Git({ cwd: join(tempDir(), 'missing') });
    await expect(gone.revParse('HEAD')).rejects.toMatchObject({ code: 'workdir_missing' });
    const missing = new Git({ cwd: tempDir(), gitBinary: join(tempDir(), 'no-git') });
    await expect(missing.revParse('HEAD')).rejects.toMatchObject({ code: 'git_not_found' });
  });

  it('reports a missing working directory clearly', async () => {
    const git = new Git({ cwd: join(tempDir(), 'missing') });
    await expect(git.run(['status'])).rejects.toMatchObject({ code: 'workdir_missing' });
  });

  it('writes input to stdin, and names a git that is not installed', async () => {
    const git = new Git({ cwd: tempDir() });
    const { stdout } = await git.run(['hash-object', '--stdin'], { input: 'x\n' });
    expect(stdout).toBe('587be6b4c3f93f93c489c0111bba5596147a26cb\n');
    const missing = new Git({ cwd: tempDir(), gitBinary: join(tempDir(), 'no-git') });
    await expect(missing.run(['status'])).rejects.toMatchObject({ code: 'git_not_found' });
  });

  it('ends a process that outlives its timeout or its cancel with a GitError that has no exit code', async () => {
    // node stands in for a git that hangs, so the test does not depend on a git command that waits.
    const hang = new Git({ cwd: tempDir(), gitBinary: process.execPath });
    const args = ['-e', 'setTimeout(() => {}, 60_000)'];
    await expect(hang.run(args, { timeoutMs: 200 })).rejects.toMatchObject({
      code: 'git_failed',
      gitExitCode: undefined,
    });
    const controller = new AbortController();
    const running = hang.run(args, { signal: controller.signal });
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'git_failed', gitExitCode: undefined });
  });
  it('reads an object of unknown origin only within its type and size, and a large one whole in linear time', async () => {
    const repo = TestRepo.create();
    const commit = repo.commit('one', { 'a.txt': 'a\n' });
    const big = repo.git.queryText(['hash-object', '-w', '--stdin'], { input: 'x'.repeat(8 * 1024 * 1024) });
    const oid = await big;
    expect(await repo.git.readBlobCapped(`${commit}:a.txt`, 10)).toEqual({ ok: true, text: 'a\n' });
    expect(await repo.git.readBlobCapped(commit, 1024)).toEqual({ ok: false, reason: 'a commit, not a blob' });
    expect(await repo.git.readBlobCapped('main:nope', 1024)).toEqual({ ok: false, reason: 'missing' });
    expect(await repo.git.readBlobCapped(oid, 1024 * 1024)).toEqual({
      ok: false,
      reason: '8.0 MiB, over the limit of 1.0 MiB',
    });
    expect(await repo.git.objectInfo(oid)).toEqual({ oid, type: 'blob', size: 8 * 1024 * 1024 });
    // Read whole (a trusted caller), its chunks are gathered without copying the answer at each one.
    const started = performance.now();
    expect((await repo.git.readObject(oid))?.content.length).toBe(8 * 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(2000);
    repo.git.close();
  });
});
