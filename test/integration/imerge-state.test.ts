import { execFileSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { IncrementalMerge } from '../../src/imerge/index.js';
import { readState, writeState } from '../../src/imerge/state.js';
import { createGridRepo } from '../fixtures/imerge/grid-repo.js';

/** The refs of merge `name` as git lists them: refname -> oid. */
function listRefs(sh: (...args: string[]) => string, name: string): Record<string, string> {
  const out = sh('for-each-ref', '--format=%(refname) %(objectname)', `refs/imerge/${name}/`);
  return Object.fromEntries(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ') as [string, string]),
  );
}

describe('imerge state refs', () => {
  it('a save writes what changed in the grid (new, replaced, manual over auto, forgotten cells) and leaves the refs exactly the grid', async () => {
    const repo = createGridRepo({ n1: 4, n2: 3, conflicts: [[3, 2]] });
    const im = await IncrementalMerge.start(repo.git, { name: 's', tip2: 'feature' });
    await im.autofill({ jobs: 1 });
    const loaded = await readState(repo.git, 's');
    const { grid, state } = loaded;
    const known: [number, number][] = [];
    for (let i1 = 1; i1 < grid.len1; i1++)
      for (let i2 = 1; i2 < grid.len2; i2++) if (grid.cell(i1, i2).oid !== null) known.push([i1, i2]);
    expect(known.length).toBeGreaterThanOrEqual(3);
    const [[a1, a2], [b1, b2], [c1, c2]] = known as [[number, number], [number, number], [number, number]];
    const at = (i1: number, i2: number): string => grid.cell(i1, i2).oid as string;
    const toManual = at(a1, a2);
    const forgotten = at(b1, b2);
    const edge = at(1, 0);
    const empty = (() => {
      for (let i1 = 1; i1 < grid.len1; i1++)
        for (let i2 = 1; i2 < grid.len2; i2++) if (grid.cell(i1, i2).oid === null) return [i1, i2] as const;
      return null;
    })();

    // An automatic merge becomes a manual one, one cell is forgotten, one gets another commit, an empty one a commit.
    Object.assign(grid.cell(a1, a2), { manual: true });
    Object.assign(grid.cell(b1, b2), { oid: null, manual: false });
    Object.assign(grid.cell(c1, c2), { oid: edge });
    if (empty) Object.assign(grid.cell(empty[0], empty[1]), { oid: edge, manual: false });
    const refs = await writeState(repo.git, 's', state, grid, loaded.refs);

    const listed = listRefs(repo.sh.bind(repo), 's');
    expect(listed[`refs/imerge/s/manual/${a1}-${a2}`]).toBe(toManual);
    expect(listed[`refs/imerge/s/auto/${a1}-${a2}`]).toBeUndefined();
    expect(listed[`refs/imerge/s/auto/${b1}-${b2}`]).toBeUndefined();
    expect(Object.values(listed)).not.toContain(forgotten);
    expect(listed[`refs/imerge/s/auto/${c1}-${c2}`]).toBe(edge);
    if (empty) expect(listed[`refs/imerge/s/auto/${empty[0]}-${empty[1]}`]).toBe(edge);
    // What the save returns is what git now has, and what the next read gives.
    expect(Object.fromEntries(refs)).toEqual(listed);
    const again = await readState(repo.git, 's');
    expect(again.grid.cell(a1, a2)).toMatchObject({ oid: toManual, manual: true });
    expect(again.grid.cell(b1, b2).oid).toBeNull();

    // Nothing changed: no ref is written (the reflog of a cell does not grow).
    const before = repo.sh('for-each-ref', '--format=%(refname) %(objectname)', 'refs/imerge/s/');
    const updates = vi.spyOn(repo.git, 'updateRefs');
    await writeState(repo.git, 's', state, grid, refs);
    expect(updates.mock.calls.map(([u]) => u)).toEqual([[]]);
    expect(repo.sh('for-each-ref', '--format=%(refname) %(objectname)', 'refs/imerge/s/')).toBe(before);
  });

  it('a refs map read elsewhere (stray refs included) is saved to exactly the grid', async () => {
    const repo = createGridRepo({ n1: 3, n2: 2, conflicts: [] });
    const im = await IncrementalMerge.start(repo.git, { name: 't', tip2: 'feature' });
    await im.autofill({ jobs: 1 });
    const { grid, state, refs } = await readState(repo.git, 't');
    const head = repo.sh('rev-parse', 'HEAD');
    repo.sh('update-ref', 'refs/imerge/t/auto/9-9', head);
    const foreign = new Map([...refs, ['refs/imerge/t/auto/9-9', head]]);
    await writeState(repo.git, 't', state, grid, foreign);
    expect(listRefs(repo.sh.bind(repo), 't')).toEqual(Object.fromEntries(refs));
  });

  it('a state blob whose fields are not as typed (a teammate pushed it) is a corrupt state, said, never a crash', async () => {
    const repo = createGridRepo({ n1: 3, n2: 2, conflicts: [] });
    await IncrementalMerge.start(repo.git, { name: 'u', tip2: 'feature' });
    const good = JSON.parse(repo.sh('cat-file', 'blob', 'refs/imerge/u/state')) as Record<string, unknown>;
    for (const forged of [{ blockers: [1] }, { blockers: [[1, 'x']] }, { blockers: 'all' }, { branch: ['main'] }]) {
      const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
        cwd: repo.dir,
        input: JSON.stringify({ ...good, ...forged }),
        encoding: 'utf8',
      }).trim();
      repo.sh('update-ref', 'refs/imerge/u/state', blob);
      await expect(readState(repo.git, 'u')).rejects.toMatchObject({ code: 'imerge_state_corrupt' });
    }
  });
});
