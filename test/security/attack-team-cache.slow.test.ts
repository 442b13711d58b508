import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheKey, ResolutionCache } from '../../src/resolve/cache/resolution-cache.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';

/**
 * A teammate with push access forges entries of the shared resolution cache (`refs/splintercat/cache`)
 * the way one would by hand: files in their own cache directory, `splintercat cache export`, `git push`.
 * Another clone takes the cache in (`cache import`, or a shared `merge --remote`): the fork's policy
 * still decides its paths, and an answer holding conflict markers is never taken in nor committed.
 */

const MARKED = '<<<<<<< ours\nbeta main\n=======\nbeta upstream\n>>>>>>> theirs\n';

/** A fork (main) and upstream that conflict on the middle line of prod.yml and of a.txt, in a bare remote. */
function team(): { root: string; clone: (person: string, config: string[]) => TestRepo } {
  const root = tempDir('splintercat-team-cache-');
  mkdirSync(join(root, 'origin'));
  const origin = TestRepo.create(join(root, 'origin'));
  const three = (word: string): string => `alpha\n${word}\ngamma\n`;
  origin.commit('base', { 'prod.yml': three('mode: base'), 'a.txt': three('beta') });
  origin.branch('upstream');
  origin.commit('fork side', { 'prod.yml': three('mode: fork'), 'a.txt': three('beta main') });
  origin.checkout('upstream');
  origin.commit('upstream side', { 'prod.yml': three('mode: upstream'), 'a.txt': three('beta upstream') });
  origin.checkout('main');
  const bare = join(root, 'shared.git');
  execFileSync('git', ['clone', '-q', '--bare', origin.dir, bare]);
  const clone = (person: string, config: string[]): TestRepo => {
    const dir = join(root, person);
    execFileSync('git', ['clone', '-q', bare, dir]);
    const repo = new TestRepo(dir);
    repo.sh('config', 'user.name', person);
    repo.sh('config', 'user.email', `${person}@example.com`);
    repo.sh('branch', '-q', 'upstream', 'origin/upstream');
    writeFileSync(
      join(dir, 'splintercat.yaml'),
      [
        'target:',
        '  branch: main',
        'check:',
        '  commands:',
        '    build: "true"',
        '  workflow: [build]',
        'imerge:',
        '  name: up',
        'merge:',
        `  worktrees: ${join(root, `${person}-wt`)}`,
        ...config,
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n.splintercat/\n');
    return repo;
  };
  return { root, clone };
}

/** Forged entries written straight into a clone's cache directory, for both readings of the hunk's base. */
async function forge(repo: TestRepo, sides: { ours: string; theirs: string; base: string }, entry: object) {
  const cache = await ResolutionCache.forRepo(new (await import('../../src/git/index.js')).Git({ cwd: repo.dir }));
  const keys = [cacheKey(sides), cacheKey({ ...sides, base: null })];
  for (const key of keys) {
    mkdirSync(join(cache.dir, key.slice(0, 2)), { recursive: true });
    const value = { version: 1, key, provenance: { when: new Date().toISOString() }, ...entry };
    writeFileSync(cache.fileOf(key), JSON.stringify(value));
  }
  return { dir: cache.dir, files: keys.map((k) => cache.fileOf(k)) };
}

/** The teammate publishes the forged cache as a teammate would: `cache export`, then `git push`. */
async function publish(mallory: TestRepo): Promise<void> {
  const exported = await runCli(['cache', 'export'], mallory.dir);
  expect(exported.code, exported.stderr).toBe(0);
  mallory.sh('push', '-q', 'origin', 'refs/splintercat/cache');
}

const prodSides = { base: 'mode: base\n', ours: 'mode: fork\n', theirs: 'mode: upstream\n' };
const aSides = { base: 'beta\n', ours: 'beta main\n', theirs: 'beta upstream\n' };

describe('attack: a teammate forges the shared resolution cache', () => {
  it("an imported 'human' answer for a path the fork's policy leaves to a person: the person is still asked", async () => {
    const { clone } = team();
    const policy = ['resolve:', '  paths:', '    prod.yml: human', '    a.txt: ours'];
    const mallory = clone('mallory', policy);
    await forge(mallory, prodSides, { resolution: 'mode: mallory\n', rung: 'person', by: 'person' });
    await forge(mallory, aSides, { resolution: 'beta mallory\n', rung: 'model', by: 'gpt' });
    await publish(mallory);

    const victim = clone('victim', policy);
    const mainBefore = victim.sh('rev-parse', 'main').trim();
    const run = await runCli(['merge', 'upstream', '--remote', 'origin'], victim.dir);
    // Stopped for the person: prod.yml is theirs to decide, whatever the cache says.
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/prod\.yml/);
    expect(victim.sh('rev-parse', 'main').trim()).toBe(mainBefore);
    const events = readFileSync(join(victim.dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8');
    expect(events).not.toContain('mode: mallory');
    // a.txt is the fork's `ours`, not the teammate's cached answer.
    expect(events).not.toContain('beta mallory');
    const worktree = /^ *cd (\S+)\s+# conflict/m.exec(run.stderr)?.[1];
    expect(worktree, run.stderr).toBeDefined();
    expect(readFileSync(join(worktree as string, 'a.txt'), 'utf8')).toBe('alpha\nbeta main\ngamma\n');
    expect(readFileSync(join(worktree as string, 'prod.yml'), 'utf8')).toMatch(/^<<<<<<< /m);
  });

  it('an answer holding conflict markers: refused at import, never committed; a local one is refused at use', async () => {
    const { clone } = team();
    const mallory = clone('mallory', []);
    await forge(mallory, aSides, { resolution: MARKED, rung: 'model', by: 'gpt' });
    await forge(mallory, prodSides, { resolution: MARKED.replace(/beta/g, 'mode:'), rung: 'person', by: 'person' });
    await publish(mallory);

    const victim = clone('victim', []);
    victim.sh('fetch', '-q', 'origin', '+refs/splintercat/cache:refs/remotes/origin/splintercat/cache');
    const imported = await runCli(['cache', 'import'], victim.dir);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^0 resolution\(s\) taken in/);
    const cache = await ResolutionCache.forRepo(new (await import('../../src/git/index.js')).Git({ cwd: victim.dir }));
    expect(await cache.list()).toEqual([]);

    const mainBefore = victim.sh('rev-parse', 'main').trim();
    const run = await runCli(['merge', 'upstream', '--remote', 'origin'], victim.dir);
    expect(run.code, run.stderr).toBe(3);
    expect(victim.sh('rev-parse', 'main').trim()).toBe(mainBefore);
    expect(victim.sh('log', '--all', '--format=%B')).not.toMatch(/validated/);

    // The same entries placed in the local cache directory by hand: the ladder refuses them at use.
    const local = clone('local', []);
    const placed = await forge(local, aSides, { resolution: MARKED, rung: 'model', by: 'gpt' });
    expect(placed.files.every((f) => existsSync(f))).toBe(true);
    try {
      local.sh('merge', '--no-edit', 'upstream');
    } catch {
      // the conflict is the point
    }
    const resolved = await runCli(['resolve', 'a.txt', '--json'], local.dir);
    expect(resolved.code, resolved.stderr).toBe(3);
    expect(JSON.parse(resolved.stdout).files[0].status).toBe('open');
    // Still unmerged: nothing was written or staged from the entry.
    expect(local.sh('ls-files', '-u', '--', 'a.txt')).not.toBe('');
  });
});
