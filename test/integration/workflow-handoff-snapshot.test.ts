import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changesSinceHandoff, recordHandoff } from '../../src/workflow/handoff/snapshot.js';
import { WorktreePool } from '../../src/workflow/worktrees.js';
import { TestRepo } from '../helpers/git-repo.js';

describe('hand-off snapshots: who changed what outside a conflict', () => {
  it('what changed before the hand-off is put back; what the person changes after is theirs, and stays theirs when handed again', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': 'a\n', 'other.txt': 'o\n' });
    repo.branch('up');
    const ours = repo.commit('ours', { 'a.txt': 'a ours\n' });
    repo.checkout('up');
    const theirs = repo.commit('theirs', { 'a.txt': 'a theirs\n' });
    repo.checkout('main');
    const pool = new WorktreePool(repo.git, join(repo.dir, '.git', 'splintercat', 'test', 'worktrees'));
    const { path } = await pool.presentMerge('resolve-1-1', ours, theirs);
    const wt = await pool.worktreeGit('resolve-1-1');

    // Something before the person (a rung, a model's check) wrote outside the conflict's files.
    writeFileSync(join(path, 'other.txt'), 'tampered\n');
    writeFileSync(join(path, 'dropped.txt'), 'x\n');
    expect((await recordHandoff(wt)).map((c) => c.path)).toEqual(['dropped.txt', 'other.txt']);
    expect(readFileSync(join(path, 'other.txt'), 'utf8')).toBe('o\n');
    expect(existsSync(join(path, 'dropped.txt'))).toBe(false);
    expect(await changesSinceHandoff(wt)).toEqual([]);

    // The person edits the conflict and a file outside it, and adds one.
    writeFileSync(join(path, 'a.txt'), 'a both\n');
    writeFileSync(join(path, 'other.txt'), 'the person\n');
    writeFileSync(join(path, 'notes.md'), 'why\n');
    const mine = [
      { path: 'notes.md', change: 'added' },
      { path: 'other.txt', change: 'modified' },
    ];
    expect(await changesSinceHandoff(wt)).toEqual(mine);
    // Handed to them again (their edit was not taken yet): nothing of theirs is put back.
    await pool.protect('resolve-1-1', ours, theirs);
    expect(await recordHandoff(wt)).toEqual([]);
    expect(await changesSinceHandoff(wt)).toEqual(mine);
    expect(readFileSync(join(path, 'other.txt'), 'utf8')).toBe('the person\n');
    wt.close();
  });
});
