import { describe, expect, it } from 'vitest';
import { oneSideUnchanged } from './one-side-unchanged.js';

const ctx = { path: 'f.txt', eol: '\n' as const };

describe('one-side-unchanged', () => {
  it('takes the side that changed', () => {
    expect(oneSideUnchanged.resolve({ base: 'a\n', ours: 'a\n', theirs: 'c\n' }, ctx)).toBe('c\n');
    expect(oneSideUnchanged.resolve({ base: 'a\n', ours: 'b\n', theirs: 'a\n' }, ctx)).toBe('b\n');
  });
  it('needs a base and an exactly unchanged side', () => {
    expect(oneSideUnchanged.resolve({ base: null, ours: 'a\n', theirs: 'c\n' }, ctx)).toBeNull();
    expect(oneSideUnchanged.resolve({ base: 'a\n', ours: 'a \n', theirs: 'c\n' }, ctx)).toBeNull();
  });
});
