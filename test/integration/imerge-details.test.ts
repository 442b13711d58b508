import { describe, expect, it } from 'vitest';
import { IncrementalMerge, removeImerge } from '../../src/imerge/index.js';
import { Git } from '../../src/git/index.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { gitSpy } from '../helpers/git-spy.js';

describe('IncrementalMerge conflict details and axes', () => {
  it('reports every conflicted path with its kind from real merge-tree messages', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'content.txt': 'a\n', 'gone.txt': 'keep\n', 'moved.txt': 'm\n', 'same.txt': 'x\n' });
    repo.sh('branch', 'feature');
    repo.commit('main 1', {
      'content.txt': 'main\n',
      'gone.txt': null,
      'added.txt': 'main add\n',
      'moved.txt': null,
      'moved-main.txt': 'm\n',
    });
    repo.checkout('feature');
    repo.commit('feature 1', {
      'content.txt': 'feature\n',
      'gone.txt': 'changed\n',
      'added.txt': 'feature add\n',
      'moved.txt': null,
    });
    repo.checkout('main');
    const im = await IncrementalMerge.start(repo.git, { name: 'd', tip2: 'feature' });
    const r = await im.autofill();
    expect(r.next).toEqual([1, 1]);
    const d = await im.conflictDetails(1, 1);
    expect(d.above).toBe(repo.sh('rev-parse', 'main'));
    expect(d.left).toBe(repo.sh('rev-parse', 'feature'));
    expect(d.commit1).toMatchObject({ subject: 'main 1', author: 'Test Author', authorEmail: 'author@example.com' });
    expect(d.commit2.subject).toBe('feature 1');
    const kinds = Object.fromEntries(d.paths.map((p) => [p.path, p.kind]));
    expect(kinds).toEqual({
      'added.txt': 'add/add',
      'content.txt': 'content',
      'gone.txt': 'modify/delete',
      // The rename's source is gone from both sides: only its destination is conflicted.
      'moved-main.txt': 'rename/delete',
    });
    expect(d.paths.find((p) => p.path === 'gone.txt')?.stages.theirs?.oid).toBe(
      repo.sh('rev-parse', 'feature:gone.txt'),
    );
    for (const p of d.paths) expect(p.messages.length).toBeGreaterThan(0);
    // The cell alone (what the workflow's resolver needs) is the same without merging anything.
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    try {
      const { conflictTree: _tree, paths: _paths, ...cell } = d;
      expect(await (await IncrementalMerge.load(git, 'd')).conflictCell(1, 1)).toEqual(cell);
      expect(spy.calls().filter((c) => c.startsWith('merge-tree') || c.startsWith('show'))).toEqual([]);
    } finally {
      git.close();
    }
    // Nothing was written to the working tree or the index.
    expect(repo.sh('status', '--porcelain')).toBe('');
    // The same paths `git merge` leaves unmerged (what git-imerge presents).
    expect(() => repo.sh('merge', '--no-commit', 'feature')).toThrow();
    expect(repo.sh('diff', '--name-only', '--diff-filter=U').split('\n')).toEqual(d.paths.map((p) => p.path).sort());
    repo.sh('merge', '--abort');
  });

  it('a merge in an axis needs --first-parent, which then follows first parents', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': '1\n' });
    repo.sh('branch', 'feature');
    repo.sh('branch', 'side');
    repo.commit('main 1', { 'm.txt': '1\n' });
    repo.checkout('side');
    repo.commit('side 1', { 's.txt': '1\n' });
    repo.checkout('main');
    repo.sh('merge', '-q', '--no-ff', '-m', 'merge side', 'side');
    repo.checkout('feature');
    repo.commit('feature 1', { 'f.txt': '1\n' });
    repo.checkout('main');
    await expect(IncrementalMerge.start(repo.git, { name: 'n', tip2: 'feature' })).rejects.toMatchObject({
      code: 'imerge_nonlinear',
      fix: ['Perhaps use "--first-parent"?'],
    });
    const im = await IncrementalMerge.start(repo.git, { name: 'n', tip2: 'feature', firstParent: true });
    expect(im.grid.len1).toBe(3);
    expect(im.cellCommit(2, 0)).toBe(repo.sh('rev-parse', 'main'));
    expect((await im.autofill()).complete).toBe(true);
  });

  it('refuses a corrupted state with what is wrong and how to start over', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': '1\n' });
    repo.sh('branch', 'feature');
    repo.commit('main 1', { 'm.txt': '1\n' });
    repo.checkout('feature');
    repo.commit('feature 1', { 'f.txt': '1\n' });
    repo.checkout('main');
    await IncrementalMerge.start(repo.git, { name: 'z', tip2: 'feature' });
    repo.sh('update-ref', 'refs/imerge/z/junk', 'HEAD');
    await expect(IncrementalMerge.load(repo.git, 'z')).rejects.toMatchObject({
      code: 'imerge_state_corrupt',
      what: expect.stringContaining('refs/imerge/z/junk'),
      fix: expect.arrayContaining(['Start over: splintercat imerge remove --name z']),
    });
    // Removal works on a corrupted state.
    await removeImerge(repo.git, 'z');
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
  });
});
