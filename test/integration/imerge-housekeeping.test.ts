import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactRepository, IncrementalMerge } from '../../src/imerge/index.js';
import { createGridRepo } from '../fixtures/imerge/grid-repo.js';

function looseObjects(dir: string): number {
  const objects = join(dir, '.git', 'objects');
  return readdirSync(objects)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .reduce((n, d) => n + readdirSync(join(objects, d)).length, 0);
}

function looseRefs(dir: string, name: string): number {
  const refs = join(dir, '.git', 'refs', 'imerge', name);
  return ['auto', 'manual'].reduce((n, kind) => {
    try {
      return n + readdirSync(join(refs, kind)).length;
    } catch {
      return n;
    }
  }, 0);
}

describe('compactRepository', () => {
  it('packs the loose refs and objects an autofill wrote once past the limits; the merge reads back the same', async () => {
    const repo = createGridRepo({ n1: 5, n2: 4, conflicts: [[3, 2]] });
    const im = await IncrementalMerge.start(repo.git, { name: 'h', tip2: 'feature' });
    // The default limits are far above what this small grid writes: nothing is packed.
    const before = await im.autofill({ jobs: 2 });
    expect(looseRefs(repo.dir, 'h')).toBeGreaterThan(9);
    const loose = looseObjects(repo.dir);
    expect(loose).toBeGreaterThan(20);
    const refs = repo.sh('for-each-ref', '--format=%(objectname) %(refname)', 'refs/imerge/h/');

    const under = await compactRepository(repo.git, 'h', { refs: 1000, objects: 100_000 });
    expect(under).toEqual({ looseRefs: looseRefs(repo.dir, 'h'), looseObjects: loose, packedRefs: false, packedObjects: false });

    const done = await compactRepository(repo.git, 'h', { refs: 1, objects: 1 });
    expect(done).toMatchObject({ packedRefs: true, packedObjects: true });
    expect(looseRefs(repo.dir, 'h')).toBe(0);
    expect(looseObjects(repo.dir)).toBe(0);
    expect(repo.sh('for-each-ref', '--format=%(objectname) %(refname)', 'refs/imerge/h/')).toBe(refs);
    expect(repo.sh('fsck', '--strict', '--no-dangling')).toBe('');

    const again = await IncrementalMerge.load(repo.git, 'h');
    expect(again.diagram()).toBe(im.diagram());
    expect((await again.autofill()).next).toEqual(before.next);
  });
});
