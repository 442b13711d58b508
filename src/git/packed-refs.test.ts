import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { packedTransaction } from './packed-refs.js';

const refsOf = (repo: TestRepo, prefix: string): string =>
  repo.sh('for-each-ref', '--format=%(objectname) %(refname)', prefix);

describe('packedTransaction', () => {
  it('writes a transaction into packed-refs, sorted, as git reads it; checks old values; deletes', async () => {
    const repo = TestRepo.create();
    const a = repo.commit('a');
    const b = repo.commit('b');
    repo.sh('pack-refs', '--all');
    const dir = await repo.git.gitDir();
    const created = Array.from({ length: 40 }, (_, k) => ({
      ref: `refs/imerge/x/auto/${k}-1`,
      newOid: a,
      oldOid: null,
    }));
    expect(packedTransaction(dir, created)).toBe(true);
    expect(refsOf(repo, 'refs/imerge/x/').split('\n')).toHaveLength(40);
    expect(readFileSync(join(dir, 'packed-refs'), 'utf8')).toMatch(/^# pack-refs with: peeled fully-peeled sorted \n/);
    repo.sh('fsck', '--no-progress');
    // An old value that does not match: nothing written.
    expect(packedTransaction(dir, [{ ref: 'refs/imerge/x/auto/0-1', newOid: b, oldOid: b }])).toBe(false);
    expect(repo.sh('rev-parse', 'refs/imerge/x/auto/0-1')).toBe(a);
    expect(
      packedTransaction(dir, [
        { ref: 'refs/imerge/x/auto/0-1', newOid: b, oldOid: a },
        { ref: 'refs/imerge/x/auto/1-1', delete: true, oldOid: a },
      ]),
    ).toBe(true);
    expect(repo.sh('rev-parse', 'refs/imerge/x/auto/0-1')).toBe(b);
    expect(await repo.git.revParse('refs/imerge/x/auto/1-1')).toBeNull();
    expect(repo.sh('rev-parse', 'main')).toBe(b);
  });

  it('leaves it to git when a ref exists loose, the lock is taken, or the ref is one git logs', async () => {
    const repo = TestRepo.create();
    const a = repo.commit('a');
    const dir = await repo.git.gitDir();
    repo.sh('update-ref', 'refs/imerge/x/state', a);
    expect(packedTransaction(dir, [{ ref: 'refs/imerge/x/state', newOid: a, oldOid: a }])).toBe(false);
    expect(packedTransaction(dir, [{ ref: 'refs/heads/new', newOid: a, oldOid: null }])).toBe(false);
    writeFileSync(join(dir, 'packed-refs.lock'), '');
    expect(packedTransaction(dir, [{ ref: 'refs/imerge/y/state', newOid: a, oldOid: null }])).toBe(false);
    expect(readFileSync(join(dir, 'packed-refs.lock'), 'utf8')).toBe('');
  });
});
