import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileMemoryKey } from '../../src/resolve/cache/file-memory.js';
import { ResolutionCache } from '../../src/resolve/cache/resolution-cache.js';
import { listUnmerged } from '../../src/resolve/parse/stages.js';
import { pathRules } from '../../src/resolve/policy/path-policy.js';
import { resolveWorkingTree } from '../../src/resolve/working-tree.js';
import { TestRepo } from '../helpers/git-repo.js';

/** The memory of whole files on a real conflicted merge: what is given again, and what never is. */
async function keyOf(repo: TestRepo): Promise<string> {
  const [entry] = await listUnmerged(repo.git);
  return fileMemoryKey('f.txt', {
    base: entry?.base?.oid ?? null,
    ours: entry?.ours?.oid ?? null,
    theirs: entry?.theirs?.oid ?? null,
  });
}

const mergeOf = (repo: TestRepo): void => {
  try {
    repo.sh('-c', 'merge.conflictStyle=diff3', 'merge', '-q', 'up', '--no-commit');
  } catch {
    // A conflicted merge exits 1: the conflict is what the test wants.
  }
};

describe('the memory of whole files', () => {
  it("gives the person's file again byte for byte (its CRLF kept), reported settled by the cache", async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'f.txt': 'a\r\nkeep\r\nz\r\n' });
    repo.branch('up');
    repo.commit('fork', { 'f.txt': 'fork\r\nkeep\r\nz\r\n' });
    repo.checkout('up');
    repo.commit('upstream', { 'f.txt': 'up\r\nkeep\r\nz\r\n' });
    repo.checkout('main');
    mergeOf(repo);
    const cache = await ResolutionCache.forRepo(repo.git);
    const mine = 'fork up\r\nkept and edited\r\nz\r\n';
    await cache.put(await keyOf(repo), {
      resolution: mine,
      rung: 'person',
      by: 'person',
      file: { path: 'f.txt', deleted: false },
      provenance: { merge: 'up', cell: '1-1' },
    });
    const [result] = await resolveWorkingTree(repo.git, { cache, fileMemory: true });
    expect(result).toMatchObject({ status: 'resolved', recalled: { deleted: false, imported: false } });
    expect(result?.resolutions.map((r) => [r.rung, r.by])).toEqual([['cache', 'person:person']]);
    expect(readFileSync(join(repo.dir, 'f.txt'), 'utf8')).toBe(mine);
    expect(repo.sh('ls-files', '-u')).toBe('');
  });

  it("another clone's file holding markers, or on a path the policy decides, is never written", async () => {
    for (const variant of ['markers', 'policy'] as const) {
      const repo = TestRepo.create();
      repo.commit('base', { 'f.txt': 'a\nkeep\nz\n' });
      repo.branch('up');
      repo.commit('fork', { 'f.txt': 'fork\nkeep\nz\n' });
      repo.checkout('up');
      repo.commit('upstream', { 'f.txt': 'up\nkeep\nz\n' });
      repo.checkout('main');
      mergeOf(repo);
      const cache = await ResolutionCache.forRepo(repo.git);
      const forged = variant === 'markers' ? '<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n' : 'pwned\n';
      const key = await keyOf(repo);
      // Through absorb, as `cache import` takes another clone's entries.
      await cache.absorb({
        version: 1,
        key,
        resolution: forged,
        rung: 'person',
        by: 'person',
        provenance: { when: new Date().toISOString() },
        file: { path: 'f.txt', deleted: false },
      });
      const policy = variant === 'policy' ? pathRules({ 'f.txt': 'person' }) : [];
      const [result] = await resolveWorkingTree(repo.git, { cache, fileMemory: true, policy });
      expect(result?.recalled, variant).toBeUndefined();
      expect(readFileSync(join(repo.dir, 'f.txt'), 'utf8'), variant).not.toContain('pwned');
      expect(repo.sh('ls-files', '-u'), variant).not.toBe('');
    }
  });
});
