import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { GitMerger, IncrementalMerge, mergeTree } from '../../src/imerge/index.js';
import { GridAncestry, ancestryFile } from '../../src/imerge/grid-ancestry.js';
import { EARLY_PACK_COMMITS, ScratchObjects } from '../../src/imerge/scratch-objects.js';
import { createGridRepo } from '../fixtures/imerge/grid-repo.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';
import { listRealMerges, realHistoriesDir } from '../helpers/real-histories.js';

/** Take branch 1's side of every conflicted path and record the cell; repeat until the grid is full. */
async function drive(repo: TestRepo, name: string): Promise<{ im: IncrementalMerge; merger: GitMerger }> {
  let im = await IncrementalMerge.load(repo.git, name);
  let merger = new GitMerger(repo.git, undefined, { shortWalk: 0 });
  for (let guard = 0; guard < 50; guard++) {
    const r = await im.autofill({ merger });
    if (r.complete) return { im, merger };
    const [i1, i2] = r.next as [number, number];
    const details = await im.conflictDetails(i1, i2);
    let tree = details.conflictTree;
    for (const p of details.paths) tree = withBlob(repo, tree, p.path, p.stages.ours?.oid as string);
    await im.recordMerge(i1, i2, tree);
    // A new process each time, as `continue` is: the ancestry comes back from its file and git.
    im = await IncrementalMerge.load(repo.git, name);
    merger = new GitMerger(repo.git, undefined, { shortWalk: 0 });
  }
  throw new Error('the grid never completed');
}

function withBlob(repo: TestRepo, tree: string, path: string, blob: string): string {
  const entries = repo
    .sh('ls-tree', tree)
    .split('\n')
    .map((l) => (l.endsWith(`\t${path}`) ? l.replace(/blob [0-9a-f]+/, `blob ${blob}`) : l));
  return execFileSync('git', ['mktree'], { input: `${entries.join('\n')}\n`, cwd: repo.dir, encoding: 'utf8' }).trim();
}

function gitBases(repo: TestRepo, a: string, b: string): string[] {
  return repo.sh('merge-base', '--all', a, b).split('\n').filter(Boolean).sort();
}

/** Every pair of recorded cells: the walk in memory agrees with `git merge-base --all`, or abstains. */
async function compareAllPairs(repo: TestRepo, im: IncrementalMerge): Promise<{ pairs: number; answered: number }> {
  const ancestry = await GridAncestry.open(repo.git, im.name, im.grid);
  expect(ancestry).not.toBeNull();
  const cells: string[] = [];
  for (let i1 = 0; i1 < im.grid.len1; i1++)
    for (let i2 = 0; i2 < im.grid.len2; i2++) if (im.cellCommit(i1, i2)) cells.push(im.cellCommit(i1, i2) as string);
  let pairs = 0;
  let answered = 0;
  for (let x = 0; x < cells.length; x++) {
    for (let y = x + 1; y < cells.length; y += 3) {
      const [a, b] = [cells[x] as string, cells[y] as string];
      pairs++;
      const ours = ancestry?.mergeBases(a, b);
      if (ours === null || ours === undefined) continue;
      answered++;
      expect([...ours.bases].sort(), `merge bases of ${a} and ${b}`).toEqual(gitBases(repo, a, b));
      // Walking on as git does, to count its walk, finds the same bases, having read at least as much.
      const counted = ancestry?.mergeBases(a, b, Number.POSITIVE_INFINITY);
      expect(counted?.bases).toEqual(ours.bases);
      expect(counted?.walked).toBeGreaterThanOrEqual(ours.walked);
    }
  }
  return { pairs, answered };
}

describe('the grid ancestry (merge bases in memory, issue 14)', () => {
  it('finds the merge bases git finds, for cells of a grid driven through conflicts, and merges from stand-ins', async () => {
    const repo = createGridRepo({
      n1: 7,
      n2: 6,
      conflicts: [
        [2, 3],
        [5, 2],
        [3, 5],
      ],
    });
    await IncrementalMerge.start(repo.git, { name: 'a', tip2: 'feature' });
    const { im, merger } = await drive(repo, 'a');
    const { pairs, answered } = await compareAllPairs(repo, im);
    // Every cell is a merge of cells or an edge commit: nothing to abstain on.
    expect(answered).toBe(pairs);
    expect(pairs).toBeGreaterThan(100);
    // The last autofill merged through stand-ins; their result is git's own merge of the two cells.
    expect(merger.knownBase).toBeGreaterThan(0);
    for (const [c1, c2] of merger.log) {
      const mine = await merger.mergeTree(c1, c2);
      const git = execFileSync('git', ['merge-tree', '--write-tree', c1, c2], {
        cwd: repo.dir,
        encoding: 'utf8',
      }).trim();
      expect(mine).toBe(git);
    }
    expect(repo.sh('fsck', '--no-dangling', '--strict')).toBe('');
    // The stand-ins were written outside the repository: none of its commits is one.
    const commits = repo
      .sh('cat-file', '--batch-all-objects', '--batch-check=%(objecttype) %(objectname)')
      .split('\n')
      .filter((l) => l.startsWith('commit '))
      .map((l) => l.slice(7));
    expect(commits.length).toBeGreaterThan(40);
    for (const c of commits) expect(repo.sh('cat-file', 'commit', c)).not.toContain('splintercat@invalid');
    // The ancestry file goes with the merge.
    const file = await ancestryFile(repo.git, 'a');
    expect(existsSync(file)).toBe(true);
    await im.finish();
    expect(existsSync(file)).toBe(false);
  });

  it('follows the first parent on branches with merges, and gives the same bases', async () => {
    const repo = createGridRepo({ n1: 5, n2: 4, conflicts: [[3, 2]], merged1: [2], merged2: [1, 3] });
    await IncrementalMerge.start(repo.git, { name: 'fp', tip2: 'feature', firstParent: true });
    const { im } = await drive(repo, 'fp');
    const { pairs, answered } = await compareAllPairs(repo, im);
    expect(answered).toBe(pairs);
  });

  it('declines a grid whose tips have more than one merge base (criss-cross), and git merges as before', async () => {
    const repo = createGridRepo({ n1: 3, n2: 3, conflicts: [] });
    // A criss-cross: each branch merges the other's previous tip.
    const main1 = repo.sh('rev-parse', 'main');
    const feature1 = repo.sh('rev-parse', 'feature');
    repo.sh('merge', '--no-ff', '-q', '-m', 'main takes feature', feature1);
    repo.sh('checkout', '-q', 'feature');
    repo.sh('merge', '--no-ff', '-q', '-m', 'feature takes main', main1);
    repo.sh('checkout', '-q', 'main');
    repo.commit('after main', { 'after-main.txt': 'x\n' });
    repo.sh('checkout', '-q', 'feature');
    repo.commit('after feature', { 'after-feature.txt': 'y\n' });
    repo.sh('checkout', '-q', 'main');
    expect(gitBases(repo, 'main', 'feature')).toHaveLength(2);
    const im = await IncrementalMerge.start(repo.git, { name: 'cc', tip2: 'feature', firstParent: true });
    expect(await GridAncestry.open(repo.git, 'cc', im.grid)).toBeNull();
    const merger = new GitMerger(repo.git, undefined, { shortWalk: 0 });
    await im.autofill({ merger });
    expect(merger.merges).toBeGreaterThan(0);
    expect(merger.knownBase).toBe(0);
  });

  it('abstains on a cell whose parents are outside the grid', async () => {
    const repo = createGridRepo({ n1: 3, n2: 3, conflicts: [[1, 1]] });
    const im = await IncrementalMerge.start(repo.git, { name: 'x', tip2: 'feature' });
    await im.autofill();
    // Record (1,1) as a commit whose only parent is an unrelated root commit.
    const tree = repo.sh('rev-parse', 'main^{tree}');
    const stray = repo.sh('commit-tree', tree, '-m', 'unrelated root');
    const odd = repo.sh('commit-tree', tree, '-p', stray, '-m', 'odd cell');
    repo.sh('update-ref', 'refs/imerge/x/manual/1-1', odd);
    const loaded = await IncrementalMerge.load(repo.git, 'x');
    const ancestry = await GridAncestry.open(repo.git, 'x', loaded.grid);
    expect(ancestry).not.toBeNull();
    expect(ancestry?.mergeBases(odd, loaded.cellCommit(2, 0) as string)).toBeNull();
    // Cells that do not reach it still get an answer.
    const a = loaded.cellCommit(2, 0) as string;
    const b = loaded.cellCommit(0, 2) as string;
    expect(ancestry?.mergeBases(a, b)?.bases).toEqual(gitBases(repo, a, b));
  });

  it("writes an autofill's objects in a scratch object directory, puts all but the stand-ins into the repository as one pack, and deletes it on close", async () => {
    const repo = createGridRepo({ n1: 2, n2: 2, conflicts: [] });
    const elsewhere = tempDir('other-objects-');
    const git = repo.git.at(repo.dir, { env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: elsewhere } });
    const objects = repo.sh('rev-parse', '--path-format=absolute', '--git-path', 'objects');
    const packs = (): string[] => readdirSync(join(objects, 'pack')).filter((f) => f.endsWith('.pack'));
    const packsBefore = packs().length;
    // The directory of a process killed outright is swept away by the next one.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const root = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
    const left = join(root, `splintercat-objects-${gone}-test`);
    mkdirSync(join(left, 'ab'), { recursive: true });
    const scratch = new ScratchObjects(git, objects);
    expect(dirname(scratch.dir)).toBe(root);
    expect(existsSync(left)).toBe(false);
    const base = repo.sh('rev-parse', 'main~1');
    const standIn = scratch.standIn(repo.sh('rev-parse', 'feature^{tree}'), base);
    expect(scratch.standIn(repo.sh('rev-parse', 'feature^{tree}'), base)).toBe(standIn);
    // The repository's objects come first among the alternates; the user's own stay in force.
    expect(scratch.git.env).toMatchObject({
      GIT_OBJECT_DIRECTORY: scratch.dir,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: `${objects}:${elsewhere}`,
    });
    expect(await scratch.git.text(['rev-parse', `${standIn}^1`])).toBe(base);
    expect(await repo.git.readObject(standIn)).toBeNull();
    // What merge-tree writes, and the merge commit, wait in the scratch directory...
    const merged = await mergeTree(scratch.git, standIn, 'main');
    expect(merged.clean).toBe(true);
    const ident = 'A <a@example.com> 1 +0000';
    const mergeCommit = scratch.commit({
      tree: merged.tree,
      parents: [repo.sh('rev-parse', 'main'), repo.sh('rev-parse', 'feature')],
      author: ident,
      committer: ident,
      message: 'm\n',
    });
    expect(await repo.git.readObject(merged.tree)).toBeNull();
    expect(await repo.git.readObject(mergeCommit)).toBeNull();
    // ...until persisted into the repository, in one pack, the stand-in left out.
    await scratch.persist();
    expect(packs().length).toBe(packsBefore + 1);
    expect(repo.sh('rev-parse', `${mergeCommit}^{tree}`)).toBe(merged.tree);
    expect(repo.sh('cat-file', '-t', merged.tree)).toBe('tree');
    expect(await repo.git.readObject(standIn)).toBeNull();
    // Nothing new, no new pack.
    await scratch.persist();
    expect(packs().length).toBe(packsBefore + 1);
    await scratch.close();
    expect(existsSync(scratch.dir)).toBe(false);
    expect(repo.sh('fsck', '--no-dangling', '--strict')).toBe('');
    git.close();
  });

  it('packs a long run of commits in the background as it goes, and persist leaves nothing behind', async () => {
    const repo = createGridRepo({ n1: 2, n2: 2, conflicts: [] });
    const objects = repo.sh('rev-parse', '--path-format=absolute', '--git-path', 'objects');
    const packs = (): string[] => readdirSync(join(objects, 'pack')).filter((f) => f.endsWith('.pack'));
    const packsBefore = packs().length;
    const scratch = new ScratchObjects(repo.git, objects);
    const tree = repo.sh('rev-parse', 'main^{tree}');
    const ident = 'A <a@example.com> 1 +0000';
    let parent = repo.sh('rev-parse', 'main');
    const commits: string[] = [];
    const write = (count: number): void => {
      for (let k = 0; k < count; k++) {
        parent = scratch.commit({
          tree,
          parents: [parent],
          author: ident,
          committer: ident,
          message: `c${commits.length}\n`,
        });
        commits.push(parent);
      }
    };
    // The commit that reaches the threshold starts a pack, which lands with no call to persist.
    write(EARLY_PACK_COMMITS);
    await vi.waitFor(() => expect(packs().length).toBe(packsBefore + 1), { timeout: 20_000, interval: 20 });
    // Fewer than the threshold since: no pack until persist, which packs them.
    write(5);
    expect(packs().length).toBe(packsBefore + 1);
    await scratch.persist();
    expect(packs().length).toBe(packsBefore + 2);
    expect(repo.sh('rev-list', '--count', parent)).toBe(
      String(commits.length + Number(repo.sh('rev-list', '--count', 'main'))),
    );
    const listed = repo.sh('cat-file', '--batch-check=%(objectname)', '--batch-all-objects').split('\n');
    expect(listed.filter((oid) => commits.includes(oid))).toHaveLength(commits.length);
    await scratch.close();
    expect(existsSync(scratch.dir)).toBe(false);
    expect(repo.sh('fsck', '--no-dangling', '--strict')).toBe('');
  });

  // Forks that merge their upstream: the fork line's first commit after the grid's base is such a
  // merge, whose first parent is an older fork commit and whose second is the base.
  const merges = existsSync(join(realHistoriesDir, 'README.md')) ? listRealMerges() : [];
  it.runIf(merges.length > 0)(
    'finds the merge bases git finds on every real fork history, with stand-ins for the merges',
    async () => {
      for (const m of merges) {
        const dir = tempDir('ancestry-real-');
        execFileSync('git', ['clone', '-q', join(realHistoriesDir, m.bundle), dir]);
        const repo = new TestRepo(dir);
        repo.sh('checkout', '-q', '-B', 'fork', m.fork);
        repo.sh('branch', '-f', 'upstream', m.upstream);
        const im = await IncrementalMerge.start(repo.git, { name: 'r', tip2: 'upstream', firstParent: true });
        const merger = new GitMerger(repo.git, undefined, { shortWalk: 0 });
        await im.autofill({ merger });
        expect(merger.knownBase, m.subject).toBe(merger.merges);
        const { pairs, answered } = await compareAllPairs(repo, im);
        expect(answered, m.subject).toBe(pairs);
        repo.git.close();
      }
    },
  );
});
