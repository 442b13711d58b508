import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { configureMemoryClone, git, handoffDir } from '../fixtures/resolve/memory-clone.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';

/**
 * A person's file-level decisions (a `git rm` of a file the fork deleted) are remembered like their
 * answers to hunks: suggested, with the evidence, where the sides differ; given again where the
 * file's three sides are the ones they decided, in this clone or one that imported the cache.
 */
const configure = (dir: string): void => configureMemoryClone(dir, ['merge:', '  strategy: per_conflict']);

describe("a person's file-level decisions are remembered", () => {
  it('a deletion asked at one cell is suggested at the next (other sides) and given again in a fresh clone', async () => {
    const a = TestRepo.create();
    a.commit('base', { 'keep.txt': 'k\n', 'old.js': 'v0\n' });
    a.branch('upstream');
    a.commit('fork: drop old.js', { 'old.js': null, 'keep.txt': 'k fork\n' });
    a.checkout('upstream');
    a.commit('upstream: old.js v1', { 'old.js': 'v1\n' });
    a.commit('upstream: old.js v2', { 'old.js': 'v2\n', 'new.txt': 'n\n' });
    a.checkout('main');
    const remote = join(tempDir(), 'shared.git');
    git(a.dir, 'init', '-q', '--bare', remote);
    git(a.dir, 'remote', 'add', 'origin', remote);
    git(a.dir, 'push', '-q', 'origin', 'main', 'upstream');
    configure(a.dir);

    const first = await runCli(['merge', 'upstream'], a.dir);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(/old\.js \[modify\/delete\]/);
    expect(first.stderr).not.toMatch(/Suggested/);
    const wt1 = handoffDir(first);
    git(wt1, 'rm', '-q', '--', 'old.js');
    const second = await runCli(['continue'], wt1);
    // The next cell meets the same deletion with upstream's next version: asked, with the suggestion and its evidence.
    expect(second.code, second.stderr).toBe(3);
    expect(second.stderr).toContain(
      'Suggested: `git rm -q -- old.js`: for other sides of this file, the person deleted it 1 time(s) (run up cell 1-1).',
    );
    const wt2 = handoffDir(second);
    git(wt2, 'rm', '-q', '--', 'old.js');
    const done = await runCli(['continue'], wt2);
    expect(done.code, done.stderr).toBe(0);
    expect(git(a.dir, 'ls-tree', '--name-only', 'main')).not.toMatch(/old\.js/);

    expect((await runCli(['cache', 'export'], a.dir)).code).toBe(0);
    git(a.dir, 'push', '-q', 'origin', 'refs/splintercat/cache');
    const b = join(tempDir(), 'b');
    git(a.dir, 'clone', '-q', '-b', 'main', remote, b);
    git(b, 'config', 'user.name', 'B');
    git(b, 'config', 'user.email', 'b@example.com');
    git(b, 'branch', 'upstream', 'origin/upstream');
    git(b, 'fetch', '-q', 'origin', '+refs/splintercat/cache:refs/splintercat/cache');
    expect((await runCli(['cache', 'import'], b)).code).toBe(0);
    configure(b);
    // Both decisions are given again: no hand-off, the same tree.
    const again = await runCli(['merge', 'upstream'], b);
    expect(again.code, again.stderr).toBe(0);
    expect(git(b, 'rev-parse', 'main^{tree}')).toBe(git(a.dir, 'rev-parse', 'main^{tree}'));
  });
});
