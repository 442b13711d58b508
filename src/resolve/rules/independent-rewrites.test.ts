import { describe, expect, it } from 'vitest';
import { bothRewroteFile, restoresDeletedLine } from './independent-rewrites.js';

describe('restoresDeletedLine', () => {
  it('finds a line one side deleted and the other wrote elsewhere', () => {
    expect(restoresDeletedLine('a = 1\nb = 2\n', 'b = 2\n', 'b = 2\na = 1\n')).toBe(true);
    expect(restoresDeletedLine('a = 1\nb = 2\n', 'b = 2\n', 'b = 2\nc = 3\n')).toBe(false);
  });
  it('ignores whitespace, blank lines and lines without a letter or digit', () => {
    expect(restoresDeletedLine('  a  =  1\n', '', 'x\na = 1\n')).toBe(true);
    expect(restoresDeletedLine('}\n\n', 'x\n', 'x\n}\n\n')).toBe(false);
  });
});

describe('bothRewroteFile', () => {
  const lines = (p: string, n: number): string => Array.from({ length: n }, (_, i) => `${p}${i}\n`).join('');
  it('is true only when each side kept less than half of the base', () => {
    expect(bothRewroteFile({ base: lines('a', 10), ours: lines('b', 10), theirs: lines('c', 10) })).toBe(true);
    expect(bothRewroteFile({ base: lines('a', 10), ours: lines('a', 6), theirs: lines('c', 10) })).toBe(false);
    expect(bothRewroteFile({ base: lines('a', 10), ours: lines('a', 10), theirs: lines('a', 10) })).toBe(false);
  });
  it('is false where a side has no file', () => {
    expect(bothRewroteFile({ base: null, ours: 'a\n', theirs: 'b\n' })).toBe(false);
    expect(bothRewroteFile({ base: 'a\n', ours: null, theirs: 'b\n' })).toBe(false);
  });
});
