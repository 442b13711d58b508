import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactionLimits, compactRepository, extendCommitGraph, IncrementalMerge } from '../../src/imerge/index.js';
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
  it('packs the refs of a larger grid less often: the limit grows as the square root of its refs', () => {
    expect(compactionLimits(0).refs).toBe(200);
    expect(compactionLimits(2_500).refs).toBe(200);
    expect(compactionLimits(10_000).refs).toBe(400);
    expect(compactionLimits(24_000).refs).toBe(620);
    expect(compactionLimits(24_000).packs).toBe(compactionLimits(0).packs);
  });

  it('packs the loose refs, loose objects and packs an autofill wrote once past the limits; the merge reads back the same', async () => {
    const repo = createGridRepo({ n1: 5, n2: 4, conflicts: [[3, 2]] });
    const packsBefore = packCount(repo.dir);
    const im = await IncrementalMerge.start(repo.git, { name: 'h', tip2: 'feature' });
    // The default limits are far above what this small grid writes: nothing is packed.
    const before = await im.autofill({ jobs: 2 });
    expect(looseRefs(repo.dir, 'h')).toBeGreaterThan(9);
    // The merges' objects came in one pack: an autofill this short saves once, when it stops. The
    // state blobs are loose.
    const packs = packCount(repo.dir);
    expect(packs).toBe(packsBefore + 1);
    const loose = looseObjects(repo.dir);
    expect(loose).toBeGreaterThan(0);
    const refs = repo.sh('for-each-ref', '--format=%(objectname) %(refname)', 'refs/imerge/h/');

    const under = await compactRepository(repo.git, 'h', { refs: 1000, objects: 100_000, packs: 1000 });
    expect(under).toEqual({
      looseRefs: looseRefs(repo.dir, 'h'),
      looseObjects: loose,
      packs,
      packedRefs: false,
      packedObjects: false,
      rolledUpPacks: false,
    });

    const loosePacked = await compactRepository(repo.git, 'h', { refs: 1000, objects: 1, packs: 1000 });
    expect(loosePacked).toMatchObject({ packedObjects: true, rolledUpPacks: false });
    expect(looseObjects(repo.dir)).toBe(0);
    expect(packCount(repo.dir)).toBe(packs + 1);

    const done = await compactRepository(repo.git, 'h', { refs: 1, objects: 1, packs: 2 });
    expect(done).toMatchObject({ packedRefs: true, rolledUpPacks: true });
    expect(looseRefs(repo.dir, 'h')).toBe(0);
    expect(looseObjects(repo.dir)).toBe(0);
    expect(packCount(repo.dir)).toBeLessThan(packs + 1);
    expect(repo.sh('for-each-ref', '--format=%(objectname) %(refname)', 'refs/imerge/h/')).toBe(refs);
    expect(repo.sh('fsck', '--strict', '--no-dangling')).toBe('');

    const again = await IncrementalMerge.load(repo.git, 'h');
    expect(again.diagram()).toBe(im.diagram());
    expect((await again.autofill()).next).toEqual(before.next);
  });
});

function packCount(dir: string): number {
  return readdirSync(join(dir, '.git', 'objects', 'pack')).filter((f) => f.endsWith('.pack')).length;
}

/** The commits of the repository's split commit-graph (every layer's OID Lookup chunk, git's format). */
function commitGraphOids(dir: string): Set<string> {
  const graphs = join(dir, '.git', 'objects', 'info', 'commit-graphs');
  const chain = join(graphs, 'commit-graph-chain');
  if (!existsSync(chain)) return new Set();
  const oids = new Set<string>();
  for (const hash of readFileSync(chain, 'utf8').split('\n').filter(Boolean)) {
    const file = readFileSync(join(graphs, `graph-${hash}.graph`));
    expect(file.subarray(0, 4).toString('latin1')).toBe('CGPH');
    const chunks = file[6] as number;
    let oidl = -1;
    let fanout = -1;
    for (let k = 0; k < chunks; k++) {
      const entry = 8 + 12 * k;
      const id = file.subarray(entry, entry + 4).toString('latin1');
      const offset = Number(file.readBigUInt64BE(entry + 4));
      if (id === 'OIDL') oidl = offset;
      if (id === 'OIDF') fanout = offset;
    }
    const count = file.readUInt32BE(fanout + 255 * 4);
    for (let k = 0; k < count; k++) oids.add(file.subarray(oidl + 20 * k, oidl + 20 * (k + 1)).toString('hex'));
  }
  return oids;
}

describe('extendCommitGraph', () => {
  it('puts every commit of the grid in a commit-graph, adding what each autofill merged before the next one merges', async () => {
    const repo = createGridRepo({ n1: 5, n2: 4, conflicts: [[3, 2]] });
    const im = await IncrementalMerge.start(repo.git, { name: 'g', tip2: 'feature' });
    const edges = [...Array(im.grid.len1).keys()]
      .map((i1) => im.cellCommit(i1, 0))
      .concat([...Array(im.grid.len2).keys()].map((i2) => im.cellCommit(0, i2)));
    await im.autofill();
    // The autofill extended the graph before merging: the history of both branches is in it.
    const first = commitGraphOids(repo.dir);
    for (const oid of edges) expect(first.has(oid as string)).toBe(true);
    const cells = repo
      .sh('for-each-ref', '--format=%(objectname)', 'refs/imerge/g/auto/', 'refs/imerge/g/manual/')
      .split('\n');
    expect(cells.some((oid) => !first.has(oid))).toBe(true);

    await extendCommitGraph(repo.git, im.grid);
    const after = commitGraphOids(repo.dir);
    for (const oid of cells) expect(after.has(oid)).toBe(true);
    expect(repo.sh('commit-graph', 'verify', '--no-progress')).toBe('');
  });
});
