import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResolutionCache } from '../../src/resolve/cache/resolution-cache.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

describe('splintercat cache list|clear', () => {
  it('lists who resolved each hunk and in which run, marks blamed answers, and clears the blamed ones or all', async () => {
    const repo = TestRepo.create();
    repo.commit('init', { 'a.txt': 'a\n' });
    const cache = new ResolutionCache(join(repo.dir, '.git', 'splintercat', 'cache'));
    const person = cache.key({ base: 'o\n', ours: 'a\n', theirs: 'b\n' });
    const rule = cache.key({ base: 'o\n', ours: 'x \n', theirs: 'x\n' });
    await cache.put(person, {
      resolution: 'ab\n',
      rung: 'person',
      by: 'person',
      provenance: { merge: 'upstream-merge', cell: '2-3', file: 'a.txt' },
    });
    await cache.put(rule, {
      resolution: 'x\n',
      rung: 'rule',
      by: 'whitespace-only',
      provenance: { merge: 'upstream-merge', cell: '1-1', file: 'b.txt' },
    });
    await cache.invalidate(rule, 'test failed', 'upstream-merge');

    const list = await runCli(['cache', 'list'], repo.dir);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/2 cached resolution\(s\)/);
    expect(list.stdout).toMatch(
      new RegExp(`${person.slice(0, 12)}\\s+person\\s+person\\s+live\\b.*run upstream-merge, cell 2-3, a\\.txt`),
    );
    expect(list.stdout).toMatch(new RegExp(`${rule.slice(0, 12)}\\s+rule\\s+whitespace-only\\s+BLAMED`));
    const json = JSON.parse((await runCli(['cache', 'list', '--json'], repo.dir)).stdout) as Array<{
      key: string;
      rung: string;
    }>;
    expect(json.map((e) => e.rung).sort()).toEqual(['person', 'rule']);

    const blamed = await runCli(['cache', 'clear', '--blamed'], repo.dir);
    expect(blamed.stdout).toMatch(/Removed 1 blamed cached resolution/);
    expect((await cache.list()).map((e) => e.key)).toEqual([person]);
    const all = await runCli(['cache', 'clear'], repo.dir);
    expect(all.stdout).toMatch(/Removed 1 cached resolution/);
    expect((await runCli(['cache', 'list'], repo.dir)).stdout).toMatch(/empty/);
  });
});
