import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorktreePool } from '../../src/workflow/worktrees.js';
import { TestRepo } from '../helpers/git-repo.js';

/** A repository with one conflicting merge (`ours` ⊕ `theirs` on a.txt), and a pool of worktrees for it. */
function conflicted(): { repo: TestRepo; pool: WorktreePool; ours: string; theirs: string } {
  const repo = TestRepo.create();
  repo.commit('base', { 'a.txt': 'a\n' });
  repo.branch('up');
  const ours = repo.commit('ours', { 'a.txt': 'a ours\n' });
  repo.checkout('up');
  const theirs = repo.commit('theirs', { 'a.txt': 'a theirs\n' });
  repo.checkout('main');
  const pool = new WorktreePool(repo.git, join(`${repo.dir}-splintercat`, 'up'));
  return { repo, pool, ours, theirs };
}

describe('WorktreePool.releaseConflicts', () => {
  it("removes a recorded conflict's worktree, the ladder's or a person's whose files are the recorded tree", async () => {
    const { repo, pool, ours, theirs } = conflicted();
    const ladder = { i1: 1, i2: 1 };
    const person = { i1: 1, i2: 2 };
    const ladderPath = (await pool.presentMerge(pool.conflictId(ladder), ours, theirs)).path;
    const personPath = (await pool.presentMerge(pool.conflictId(person), ours, theirs)).path;
    await pool.protect(pool.conflictId(person), ours, theirs);
    writeFileSync(join(personPath, 'a.txt'), 'a settled\n');
    const tree = await pool.writeTree(pool.conflictId(person));
    const progress: string[] = [];
    const out = await pool.releaseConflicts(
      [
        { cell: ladder, tree: null },
        { cell: person, tree },
      ],
      (path, done, total) => progress.push(`${done}/${total} ${path}`),
    );
    expect(out.kept).toEqual([]);
    expect(existsSync(ladderPath)).toBe(false);
    expect(existsSync(personPath)).toBe(false);
    // Removed at once: each is said as it finishes, counted in the order they did.
    expect(progress.map((line) => line.split(' ')[0])).toEqual(['1/2', '2/2']);
    expect(progress.map((line) => line.split(' ')[1]).sort()).toEqual([ladderPath, personPath].sort());
    // What it took is said, for the time left's cleanup: two removed, none held after.
    expect(out.removal.count).toBe(2);
    expect(out.removal.ms).toBeGreaterThan(0);
    expect(pool.held()).toBe(0);
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(1);
  });

  it("never removes a person's worktree holding edits the recorded resolution does not have, and says it once", async () => {
    const { repo, pool, ours, theirs } = conflicted();
    const cell = { i1: 1, i2: 1 };
    const id = pool.conflictId(cell);
    const { path } = await pool.presentMerge(id, ours, theirs);
    await pool.protect(id, ours, theirs);
    writeFileSync(join(path, 'a.txt'), 'a settled\n');
    const recorded = await pool.writeTree(id);
    // After the resolution was recorded, the person went on writing (a file of their own).
    writeFileSync(join(path, 'later.txt'), 'written after the record\n');
    const first = await pool.releaseConflicts([{ cell, tree: recorded }]);
    expect(first).toEqual({ removed: [], kept: [{ id, first: true }], removal: { count: 0, ms: 0 } });
    expect(pool.held()).toBe(1);
    const again = await pool.releaseConflicts([{ cell, tree: recorded }]);
    expect(again.kept).toEqual([{ id, first: false }]);
    expect(existsSync(join(path, 'later.txt'))).toBe(true);
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(2);
  });
});

describe('spare worktrees', () => {
  it("keeps up to `spares` recorded conflicts' worktrees for the next conflicts, with nothing of the old one left", async () => {
    const { repo, theirs, ours } = conflicted();
    const root = join(`${repo.dir}-splintercat`, 'up');
    const pool = new WorktreePool(repo.git, root, undefined, 1);
    const first = { i1: 1, i2: 1 };
    const second = { i1: 1, i2: 2 };
    const a = await pool.presentMerge(pool.conflictId(first), ours, theirs);
    const b = await pool.presentMerge(pool.conflictId(second), ours, theirs);
    await pool.protect(pool.conflictId(first), ours, theirs);
    writeFileSync(join(a.path, 'a.txt'), 'a settled\n');
    writeFileSync(join(a.path, 'build.o'), 'an ignored output\n');
    writeFileSync(join(a.path, '.gitignore'), '*.o\n');
    const tree = await pool.writeTree(pool.conflictId(first));
    const out = await pool.releaseConflicts([
      { cell: first, tree },
      { cell: second, tree: null },
    ]);
    expect(out.removed.sort()).toEqual([pool.conflictId(first), pool.conflictId(second)].sort());
    // One spare kept (the first), the other removed: the run's disk is the open conflicts' plus the spares.
    expect(existsSync(a.path) || existsSync(b.path)).toBe(false);
    expect(readdirSync(root)).toEqual(['spare-1']);
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(2);
    // The spare forgets its conflict: whose it was, its snapshots and their ref.
    const spare = (await pool.gitOf('spare-1'))!;
    expect(readdirSync(spare.boundGitDir!).filter((f) => f.startsWith('splintercat'))).toEqual([]);
    expect(await spare.lines(['for-each-ref', '--format=%(refname)', 'refs/worktree/'])).toEqual([]);
    spare.close();

    // The next conflict takes the spare: at its own merge, no file, mark or ref of the one before.
    const next = { i1: 2, i2: 1 };
    const c = await pool.presentMerge(pool.conflictId(next), ours, theirs);
    expect(readdirSync(root)).toEqual([pool.conflictId(next)]);
    expect(readFileSync(join(c.path, 'a.txt'), 'utf8')).toMatch(/<<<<<<< /);
    expect(existsSync(join(c.path, 'build.o'))).toBe(false);
    expect(existsSync(join(c.path, '.gitignore'))).toBe(false);
    const wt = (await pool.gitOf(pool.conflictId(next)))!;
    expect(existsSync(join(wt.boundGitDir!, 'splintercat-person'))).toBe(false);
    wt.close();

    // The run's end removes spares too.
    await pool.releaseConflicts([{ cell: next, tree: null }]);
    expect(readdirSync(root)).toEqual(['spare-1']);
    await pool.removeRun([]);
    expect(existsSync(root)).toBe(false);
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(1);
  });
});
