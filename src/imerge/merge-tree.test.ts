import { describe, expect, it } from 'vitest';
import { conflictKindOf, conflictPaths, parseMergeTreeOutput } from './merge-tree.js';

describe('merge-tree output parsing', () => {
  it('parses stages and messages of -z output and classifies each path', () => {
    const z = [
      'aaaa',
      '100644 1111111111111111111111111111111111111111 1\tdel',
      '100644 3333333333333333333333333333333333333333 3\tdel',
      '100644 1111111111111111111111111111111111111111 1\tf',
      '100644 2222222222222222222222222222222222222222 2\tf',
      '100644 3333333333333333333333333333333333333333 3\tf',
      '',
      '1',
      'del',
      'CONFLICT (modify/delete)',
      'CONFLICT (modify/delete): del deleted in a and modified in b.\n',
      '1',
      'f',
      'Auto-merging',
      'Auto-merging f\n',
      '1',
      'f',
      'CONFLICT (contents)',
      'CONFLICT (content): Merge conflict in f\n',
      '1',
      'clean',
      'Auto-merging',
      'Auto-merging clean\n',
      '2',
      'x',
      'y',
      'CONFLICT (something new)',
      'CONFLICT (something new): x vs y\n',
      '',
    ].join('\0');
    const parsed = parseMergeTreeOutput(z);
    expect(parsed.tree).toBe('aaaa');
    expect(parsed.stages).toHaveLength(5);
    expect(parsed.messages).toHaveLength(5);
    const paths = conflictPaths({ clean: false, ...parsed });
    expect(paths.map((p) => [p.path, p.kind])).toEqual([
      ['del', 'modify/delete'],
      ['f', 'content'],
      ['x', 'unknown'],
      ['y', 'unknown'],
    ]);
    expect(paths[1]?.messages).toEqual(['Auto-merging f', 'CONFLICT (content): Merge conflict in f']);
    expect(paths[0]?.stages.ours).toBeUndefined();
    expect(paths[0]?.stages.theirs?.oid).toBe('3333333333333333333333333333333333333333');
  });

  it('reports a rename/delete at the renamed path only; the source is gone from both sides', () => {
    // git 2.39 merge-tree -z: main renamed gone.txt to gone2.txt, feature deleted gone.txt.
    const z = [
      'tttt',
      '100644 3b1e544547b306a2e99f8bc35f50610cd23e2e28 1\tgone2.txt',
      '100644 3b1e544547b306a2e99f8bc35f50610cd23e2e28 2\tgone2.txt',
      '',
      '2',
      'gone2.txt',
      'gone.txt',
      'CONFLICT (rename/delete)',
      'CONFLICT (rename/delete): gone.txt renamed to gone2.txt in main, but deleted in feature.\n',
      '1',
      'split',
      'CONFLICT (directory rename split)',
      'CONFLICT (directory rename split): Unclear where to rename split to\n',
      '',
    ].join('\0');
    const paths = conflictPaths({ clean: false, ...parseMergeTreeOutput(z) });
    expect(paths.map((p) => [p.path, p.kind])).toEqual([
      ['gone2.txt', 'rename/delete'],
      // No stages anywhere in its message: still reported.
      ['split', 'unknown'],
    ]);
    expect(paths[0]?.messages).toEqual([
      'CONFLICT (rename/delete): gone.txt renamed to gone2.txt in main, but deleted in feature.',
    ]);
  });

  it('maps every conflict type git 2.39 emits', () => {
    expect(conflictKindOf('CONFLICT (add/add)')).toBe('add/add');
    expect(conflictKindOf('CONFLICT (contents)', 'CONFLICT (add/add): Merge conflict in added')).toBe('add/add');
    expect(conflictKindOf('CONFLICT (rename/delete)')).toBe('rename/delete');
    expect(conflictKindOf('CONFLICT (rename/rename)')).toBe('rename/rename');
    expect(conflictKindOf('CONFLICT (rename involved in collision)')).toBe('rename/rename');
    expect(conflictKindOf('CONFLICT (file/directory)')).toBe('file/directory');
    expect(conflictKindOf('CONFLICT (binary)')).toBe('binary');
    expect(conflictKindOf('CONFLICT (distinct modes)')).toBe('mode');
    expect(conflictKindOf('CONFLICT (submodule lacks merge base)')).toBe('submodule');
    expect(conflictKindOf('CONFLICT (weird)')).toBe('unknown');
    expect(conflictKindOf('Auto-merging')).toBeNull();
  });
});
