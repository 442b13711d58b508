import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/index.js';
import { ResolutionCache } from '../../src/resolve/index.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo, tempDir, testGitEnv } from '../helpers/git-repo.js';

/**
 * The resolution cache shared through git: exported to refs/splintercat/cache, pushed to a bare
 * remote, fetched into another clone and taken in there (answers and blames), and back.
 */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...testGitEnv }, encoding: 'utf8' }).trim();
}

async function cacheOf(dir: string): Promise<ResolutionCache> {
  const g = new Git({ cwd: dir, env: testGitEnv });
  try {
    return await ResolutionCache.forRepo(g);
  } finally {
    g.close();
  }
}

const sides = (n: number) => ({ base: `base ${n}\n`, ours: `ours ${n}\n`, theirs: `theirs ${n}\n` });

describe('the resolution cache shared through git', () => {
  it('round-trips through a bare remote: push, fetch, import, and back, blames included', async () => {
    const a = TestRepo.create();
    a.commit('base', { 'a.txt': 'a\n' });
    const cacheA = await cacheOf(a.dir);
    await cacheA.put(cacheA.key(sides(1)), { resolution: 'kept ours 1\n', rung: 'person', by: 'person' });
    const blamedKey = cacheA.key(sides(2));
    await cacheA.put(blamedKey, { resolution: 'wrong 2\n', rung: 'rule', by: 'contained-change' });
    await cacheA.invalidate(blamedKey, 'test failed: t.js');

    const exported = await runCli(['cache', 'export'], a.dir);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(
      /^refs\/splintercat\/cache is now [0-9a-f]{12}; share it with: git push origin refs\/splintercat\/cache/,
    );
    expect((await runCli(['cache', 'export'], a.dir)).stdout).toMatch(/already holds every cached resolution/);

    const remote = join(tempDir(), 'shared.git');
    git(a.dir, 'init', '-q', '--bare', remote);
    git(a.dir, 'remote', 'add', 'origin', remote);
    git(a.dir, 'push', '-q', 'origin', 'main', 'refs/splintercat/cache');

    const b = join(tempDir(), 'b');
    git(a.dir, 'clone', '-q', remote, b);
    git(b, 'fetch', '-q', 'origin', '+refs/splintercat/cache:refs/splintercat/cache');
    const imported = await runCli(['cache', 'import'], b);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^2 resolution\(s\) taken in from refs\/splintercat\/cache/);
    const cacheB = await cacheOf(b);
    expect((await cacheB.get(cacheB.key(sides(1))))?.resolution).toBe('kept ours 1\n');
    // The blame travelled too: the blamed answer is not replayed in the other clone either.
    expect(await cacheB.get(blamedKey)).toBeNull();
    expect(await cacheB.isBlamed(blamedKey, 'wrong 2\n')).toBe(true);

    // B learns something, exports on top of what it fetched (a fast-forward for the remote), pushes.
    await cacheB.put(cacheB.key(sides(3)), { resolution: 'both 3\n', rung: 'person', by: 'person' });
    expect((await runCli(['cache', 'export'], b)).code).toBe(0);
    git(b, 'push', '-q', 'origin', 'refs/splintercat/cache');
    git(a.dir, 'fetch', '-q', 'origin', '+refs/splintercat/cache:refs/splintercat/cache');
    expect((await runCli(['cache', 'import'], a.dir)).stdout).toMatch(/^1 resolution\(s\) taken in/);
    expect((await cacheA.get(cacheA.key(sides(3))))?.resolution).toBe('both 3\n');
    const listed = JSON.parse((await runCli(['cache', 'list', '--json'], a.dir)).stdout) as Array<{ key: string }>;
    expect(listed).toHaveLength(3);
  });
});
