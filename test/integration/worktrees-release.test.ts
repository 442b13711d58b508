import { existsSync, writeFileSync } from 'node:fs';
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
    expect(progress).toEqual([`1/2 ${ladderPath}`, `2/2 ${personPath}`]);
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
    expect(first).toEqual({ removed: [], kept: [{ id, first: true }] });
    const again = await pool.releaseConflicts([{ cell, tree: recorded }]);
    expect(again.kept).toEqual([{ id, first: false }]);
    expect(existsSync(join(path, 'later.txt'))).toBe(true);
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(2);
  });
});
