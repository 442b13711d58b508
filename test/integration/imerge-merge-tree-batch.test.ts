import { getEventListeners } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/index.js';
import { mergeTree } from '../../src/imerge/index.js';
import { MergeTreeBatch } from '../../src/imerge/merge-tree-batch.js';
import { TestRepo, tempDir, testGitEnv } from '../helpers/git-repo.js';

/** A repository whose branches merge cleanly in places and conflict in others (text, add/add, modify/delete, paths with spaces and accents). */
function conflictRepo(): { repo: TestRepo; pairs: [string, string][] } {
  const repo = TestRepo.create();
  repo.commit('base', { 'a.txt': '1\n2\n3\n', 'gone.txt': 'x\n', 'dir é/b c.txt': 'b\n' });
  repo.branch('side');
  const m1 = repo.commit('main 1', { 'a.txt': '1\nmain\n3\n' });
  const m2 = repo.commit('main 2', { 'new.txt': 'main\n', 'dir é/b c.txt': 'main\n', 'gone.txt': 'changed\n' });
  repo.checkout('side');
  const s1 = repo.commit('side 1', { 'other.txt': 'side\n' });
  const s2 = repo.commit('side 2', {
    'a.txt': '1\nside\n3\n',
    'new.txt': 'side\n',
    'dir é/b c.txt': 'side\n',
    'gone.txt': null,
  });
  repo.checkout('main');
  return {
    repo,
    pairs: [
      [m1, s1],
      [m2, s2],
      [m1, s2],
      [m2, s1],
      [s1, m1],
    ],
  };
}

/** A `git` that never answers, or that does not know --stdin: what a git without batched merges does. */
function fakeGit(script: string): Git {
  const dir = tempDir('fake-git-');
  writeFileSync(join(dir, 'git'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return new Git({ cwd: dir, gitBinary: join(dir, 'git'), env: testGitEnv });
}

describe('MergeTreeBatch', () => {
  it('answers each merge as a merge-tree process of its own does, lanes in parallel, in any order of asking', async () => {
    const { repo, pairs } = conflictRepo();
    const batch = new MergeTreeBatch(repo.git, 2);
    try {
      const expected = await Promise.all(pairs.map(([a, b]) => mergeTree(repo.git, a, b)));
      // Twice over, all at once: answers come back to the merge that asked, whichever lane ran it.
      const got = await Promise.all([...pairs, ...pairs].map(([a, b]) => batch.merge(a, b)));
      expect(got).toEqual([...expected, ...expected]);
      expect(expected.filter((r) => !r.clean).length).toBeGreaterThanOrEqual(2);
      const conflicted = expected.find(
        (r) => !r.clean && r.messages.some((m) => m.type === 'CONFLICT (modify/delete)'),
      );
      expect(conflicted).toBeDefined();
    } finally {
      batch.close();
    }
  });

  it('answers null, for every merge, where git cannot answer merge by merge: the caller merges one process each', async () => {
    // A git that reads and never answers (output held in a buffer): the probe gives up.
    const silent = new MergeTreeBatch(fakeGit('cat >/dev/null'), 2, 200);
    expect(await Promise.all([silent.merge('a', 'b'), silent.merge('c', 'd')])).toEqual([null, null]);
    expect(await silent.merge('e', 'f')).toBeNull();
    silent.close();
    // A git without --stdin: usage, exit 129.
    const old = new MergeTreeBatch(fakeGit('echo "usage: git merge-tree" >&2; exit 129'), 2);
    expect(await old.merge('a', 'b')).toBeNull();
    old.close();
    // No git there at all.
    const missing = new MergeTreeBatch(new Git({ cwd: tempDir(), gitBinary: '/nonexistent/git', env: testGitEnv }), 1);
    expect(await missing.merge('a', 'b')).toBeNull();
    missing.close();
  });

  it('rejects a merge git fails on, and an aborted merge at once; answered merges let go of the signal', async () => {
    const { repo, pairs } = conflictRepo();
    const batch = new MergeTreeBatch(repo.git, 1);
    try {
      const [a, b] = pairs[0] as [string, string];
      // One signal for a whole run: no listener left behind per merge.
      const run = new AbortController();
      for (let k = 0; k < 20; k++) expect((await batch.merge(a, b, run.signal))?.clean).toBe(true);
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
      await expect(batch.merge(a, 'f'.repeat(40))).rejects.toThrow(/merge-tree/);
      const controller = new AbortController();
      const pending = batch.merge(b, a, controller.signal);
      controller.abort(new Error('stop'));
      await expect(pending).rejects.toThrow('stop');
    } finally {
      batch.close();
    }
  });
});
