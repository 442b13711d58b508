import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { Git } from '../git/index.js';
import { pathRules } from './policy/path-policy.js';
import { resolveWorkingTree } from './working-tree.js';

/** `git merge` stopped on a lockfile and a translation, each changed on the same line by both sides. */
function merged(): TestRepo {
  const words = (hello: string, extra = ''): string =>
    `en:\n  hello: "${hello}"\n  a: "1"\n  b: "2"\n  c: "3"\n${extra}`;
  const repo = TestRepo.create();
  repo.commit('base', { 'yarn.lock': 'a@1:\n  version "1"\n', 'en.yml': words('Hi') });
  repo.branch('up');
  repo.commit('fork', { 'yarn.lock': 'a@1:\n  version "1.1"\n', 'en.yml': words('Hi fork', '  mine: "x"\n') });
  repo.checkout('up');
  repo.commit('upstream', { 'yarn.lock': 'a@1:\n  version "2"\n', 'en.yml': words('Hi up') });
  repo.checkout('main');
  expect(() => repo.sh('merge', '--no-edit', 'up')).toThrow();
  return repo;
}

describe('a path decided once for this merge', () => {
  it('takes the side again: a lockfile whole, a translation hunk by hunk with the clean merge kept', async () => {
    const repo = merged();
    const git = new Git({ cwd: repo.dir });
    try {
      const decided = { side: 'upstream' as const, conflict: '1-1' };
      const results = await resolveWorkingTree(git, { decidedOnce: { 'yarn.lock': decided, 'en.yml': decided } });
      for (const r of results) {
        expect(r).toMatchObject({ status: 'resolved', rung: 'cache', decidedOnce: decided });
        expect(r.note).toMatch(/^decided once for this merge \(at 1-1 by the person\): upstream's/);
      }
      expect(readFileSync(join(repo.dir, 'yarn.lock'), 'utf8')).toBe('a@1:\n  version "2"\n');
      expect(readFileSync(join(repo.dir, 'en.yml'), 'utf8')).toBe(
        'en:\n  hello: "Hi up"\n  a: "1"\n  b: "2"\n  c: "3"\n  mine: "x"\n',
      );
      expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('');
    } finally {
      git.close();
    }
  });

  it("gives way to the fork's policy for the path, and only there", async () => {
    const repo = merged();
    const git = new Git({ cwd: repo.dir });
    try {
      const decided = { side: 'upstream' as const, conflict: '1-1' };
      const results = await resolveWorkingTree(git, {
        decidedOnce: { 'yarn.lock': decided, 'en.yml': decided },
        policy: pathRules({ 'yarn.lock': 'ours' }),
      });
      expect(results.find((r) => r.path === 'yarn.lock')).toMatchObject({ status: 'resolved', rung: 'policy' });
      expect(results.find((r) => r.path === 'en.yml')).toMatchObject({ status: 'resolved', rung: 'cache' });
      expect(readFileSync(join(repo.dir, 'yarn.lock'), 'utf8')).toBe('a@1:\n  version "1.1"\n');
    } finally {
      git.close();
    }
  });
});
