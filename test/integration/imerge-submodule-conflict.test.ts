import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/index.js';
import { conflictPaths, mergeTree, parseMergeTreeOutput } from '../../src/imerge/merge-tree.js';
import { MergeTreeBatch } from '../../src/imerge/merge-tree-batch.js';
import { tempDir, testGitEnv } from '../helpers/git-repo.js';
import { submoduleConflict } from '../fixtures/imerge/submodule-conflict.js';

describe('merge-tree output with free text (a submodule conflict, git 2.39)', () => {
  it('parses: the free text is a message of no path, the submodule a conflicted path', async () => {
    const { repo, ours, theirs } = submoduleConflict();
    const result = await mergeTree(repo.git, ours, theirs);
    expect(result.clean).toBe(false);
    if (result.clean) return;
    expect(conflictPaths(result).map((p) => [p.path, p.kind])).toEqual([['s', 'submodule']]);
    const parsed = parseMergeTreeOutput(
      'TREE\0\0' + '1\0s\0CONFLICT (submodule)\0Failed\n\0' + 'Recursive merging...\n\0',
    );
    expect(parsed.messages).toEqual([
      { paths: ['s'], type: 'CONFLICT (submodule)', text: 'Failed' },
      { paths: [], type: '', text: 'Recursive merging...' },
    ]);
  });

  it('batched merges answer it and the merges after it, in order (it used to hang)', async () => {
    const { repo, ours, theirs } = submoduleConflict();
    const batch = new MergeTreeBatch(repo.git, 1);
    try {
      const [conflicted, clean] = await Promise.all([batch.merge(ours, theirs), batch.merge(ours, ours)]);
      if (conflicted === null) return; // this git cannot batch merges: the per-merge path is tested above
      expect(conflicted.clean).toBe(false);
      expect(clean).toEqual({ clean: true, tree: await repo.git.text(['rev-parse', `${ours}^{tree}`]) });
    } finally {
      batch.close();
    }
  });

  it('an answer git starts and never ends is an error, not a wait', async () => {
    const dir = tempDir('fake-git-');
    // Answers the probe (a merge of a commit with itself), then half an answer, then nothing.
    writeFileSync(
      join(dir, 'git'),
      `#!/bin/sh\nread a\nprintf '1\\0tree\\0\\0'\nread b\nprintf '0\\0tree\\0100644 x 1\\tf\\0'\nexec sleep 30\n`,
      { mode: 0o755 },
    );
    const git = new Git({ cwd: dir, gitBinary: join(dir, 'git'), env: testGitEnv });
    const batch = new MergeTreeBatch(git, 1, 5000, 200);
    try {
      await expect(batch.merge('a', 'b')).rejects.toThrow(/merge-tree's answer could not be read/);
    } finally {
      batch.close();
    }
  });
});
