import { describe, expect, it } from 'vitest';
import { remergeLines } from './remerge-lines.js';

const ctx = { path: 'f.txt', eol: '\n' as const };

describe('remerge-lines', () => {
  it('merges edits of different lines that git grouped into one hunk', () => {
    const base = 'a\nb\nc\nd\ne\n';
    expect(remergeLines.resolve({ base, ours: 'A\nb\nc\nd\ne\n', theirs: 'a\nb\nc\nd\nE\n' }, ctx)).toBe(
      'A\nb\nc\nd\nE\n',
    );
  });
  it('leaves overlapping and adjacent edits alone', () => {
    expect(remergeLines.resolve({ base: 'a\nb\n', ours: 'A\nb\n', theirs: 'a2\nb\n' }, ctx)).toBeNull();
    expect(remergeLines.resolve({ base: 'a\nb\n', ours: 'A\nb\n', theirs: 'a\nB\n' }, ctx)).toBeNull();
    expect(remergeLines.resolve({ base: null, ours: 'A\n', theirs: 'B\n' }, ctx)).toBeNull();
  });
});
