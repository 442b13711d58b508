import { describe, expect, it } from 'vitest';
import {
  listUnmerged,
  mergeFileTexts,
  parseConflictText,
  printConflictedFile,
  readStageTexts,
} from '../../src/resolve/index.js';
import { readBlob } from '../../src/resolve/parse/read-blob.js';
import { Git } from '../../src/git/index.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { gitSpy } from '../helpers/git-spy.js';

describe('conflicts from index stages', () => {
  it('reads :1:/:2:/:3: of unmerged paths and rebuilds the hunks with a base', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'f.txt': 'a\nb\nc\n', 'gone.txt': 'x\n' });
    repo.branch('feature');
    repo.commit('main', { 'f.txt': 'a\nB main\nc\n', 'gone.txt': 'x changed\n' });
    repo.checkout('feature');
    repo.commit('feature', { 'f.txt': 'a\nB feature\nc\n', 'gone.txt': null });
    repo.checkout('main');
    expect(() => repo.sh('merge', '--no-edit', 'feature')).toThrow();

    const entries = await listUnmerged(repo.git);
    expect(entries.map((e) => e.path)).toEqual(['f.txt', 'gone.txt']);
    const gone = entries[1]!;
    expect(gone.base && gone.ours && !gone.theirs).toBe(true);
    const texts = await readStageTexts(repo.git, entries[0]!);
    expect(texts).toEqual({ base: 'a\nb\nc\n', ours: 'a\nB main\nc\n', theirs: 'a\nB feature\nc\n' });

    const merged = await mergeFileTexts(repo.git, {
      base: texts.base!,
      ours: texts.ours!,
      theirs: texts.theirs!,
      labels: { ours: 'HEAD', theirs: 'feature' },
    });
    expect(merged.conflicts).toBe(1);
    const file = parseConflictText(merged.text, { path: 'f.txt' });
    expect(file.hunks[0]).toMatchObject({
      base: 'b\n',
      ours: 'B main\n',
      theirs: 'B feature\n',
      labels: { ours: 'HEAD', base: 'base', theirs: 'feature' },
      startLine: 2,
      endLine: 8,
    });
    expect(printConflictedFile(file)).toBe(merged.text);
  });

  it('reads blobs through the long-lived cat-file reader: null for a missing object or one that is not a blob', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'f.txt': 'a\nb\n', 'dir/g.txt': 'g\n' });
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    try {
      const entry = {
        path: 'f.txt',
        base: { mode: '100644', oid: repo.sh('rev-parse', 'HEAD:f.txt'), path: 'f.txt' },
        theirs: { mode: '100644', oid: repo.sh('rev-parse', 'HEAD:dir/g.txt'), path: 'f.txt' },
      };
      expect(await readStageTexts(git, entry)).toEqual({ base: 'a\nb\n', ours: null, theirs: 'g\n' });
      expect(await readBlob(git, 'HEAD:dir/g.txt')).toBe('g\n');
      expect(await readBlob(git, 'HEAD:nope.txt')).toBeNull();
      expect(await readBlob(git, '0123456789012345678901234567890123456789')).toBeNull();
      expect(await readBlob(git, 'HEAD')).toBeNull();
      expect(await readBlob(git, 'HEAD:dir')).toBeNull();
      expect(spy.calls()).toEqual(['cat-file --batch']);
    } finally {
      git.close();
    }
  });
});
