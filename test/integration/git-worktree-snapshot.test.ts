import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changesSince, restoreSnapshot, takeSnapshot } from '../../src/git/worktree-snapshot.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';

/** A conflicted merge in a fresh repository: c.txt conflicts, src/ and keep.txt merge cleanly. */
function conflicted(): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'c.txt': 'c\n', 'src/a.js': 'a\n', 'src/b.js': 'b\n', 'keep.txt': 'k\n' });
  repo.branch('up');
  repo.commit('ours', { 'c.txt': 'c ours\n' });
  repo.checkout('up');
  repo.commit('theirs', { 'c.txt': 'c theirs\n', 'src/b.js': 'b theirs\n' });
  repo.checkout('main');
  try {
    repo.sh('merge', '--no-edit', 'up');
  } catch {
    // the conflict is the point
  }
  return repo;
}

describe('worktree snapshots', () => {
  it('see every change outside the excluded paths, and put each back without touching the index', async () => {
    const repo = conflicted();
    const stages = repo.sh('ls-files', '-s');
    const snap = await takeSnapshot(repo.git, ['c.txt']);
    expect(await changesSince(repo.git, snap)).toEqual([]);

    const outside = tempDir();
    writeFileSync(join(outside, 'secret'), 'not for the repo\n');
    writeFileSync(join(repo.dir, 'c.txt'), 'resolved\n'); // the conflict's own file: not ours to see
    writeFileSync(join(repo.dir, 'keep.txt'), 'changed\n');
    writeFileSync(join(repo.dir, 'new.txt'), 'added\n');
    rmSync(join(repo.dir, 'src'), { recursive: true });
    symlinkSync(outside, join(repo.dir, 'src')); // a directory replaced by a link out of the repository
    writeFileSync(join(repo.dir, '.gitignore'), 'hidden.txt\n');
    writeFileSync(join(repo.dir, 'hidden.txt'), 'hidden by the .gitignore written with it\n');

    const seen = await changesSince(repo.git, snap);
    expect(seen).toEqual([
      { path: '.gitignore', change: 'added' },
      { path: 'keep.txt', change: 'modified' },
      { path: 'new.txt', change: 'added' },
      { path: 'src', change: 'added' },
      { path: 'src/a.js', change: 'deleted' },
      { path: 'src/b.js', change: 'deleted' },
    ]);
    const restored = await restoreSnapshot(repo.git, snap);
    expect(restored.map((r) => r.path)).toEqual([...seen.map((s) => s.path), 'hidden.txt']);
    expect(await changesSince(repo.git, snap)).toEqual([]);
    expect(readFileSync(join(repo.dir, 'keep.txt'), 'utf8')).toBe('k\n');
    expect(lstatSync(join(repo.dir, 'src')).isDirectory()).toBe(true);
    expect(readFileSync(join(repo.dir, 'src', 'b.js'), 'utf8')).toBe('b theirs\n');
    for (const gone of ['new.txt', 'hidden.txt', '.gitignore']) expect(existsSync(join(repo.dir, gone))).toBe(false);
    // The link's target is untouched; the conflict's file keeps its edit; the index is as git left it.
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('not for the repo\n');
    expect(readFileSync(join(repo.dir, 'c.txt'), 'utf8')).toBe('resolved\n');
    expect(repo.sh('ls-files', '-s')).toBe(stages);
  });

  it('a file written in place of a directory, and a nested repository, are removed', async () => {
    const repo = conflicted();
    const snap = await takeSnapshot(repo.git, ['c.txt']);
    mkdirSync(join(repo.dir, 'nested'));
    new TestRepo(join(repo.dir, 'nested')).sh('init', '-q');
    writeFileSync(join(repo.dir, 'nested', 'x'), 'x\n');
    await restoreSnapshot(repo.git, snap);
    expect(existsSync(join(repo.dir, 'nested'))).toBe(false);
    expect(await changesSince(repo.git, snap)).toEqual([]);
  });
});
