import { describe, expect, it } from 'vitest';
import { identicalSides } from './identical-sides.js';

const ctx = { path: 'f.txt', eol: '\n' as const };

describe('identical-sides', () => {
  it('takes the shared change and nothing else', () => {
    expect(identicalSides.resolve({ base: 'a\n', ours: 'b\n', theirs: 'b\n' }, ctx)).toBe('b\n');
    expect(identicalSides.resolve({ base: 'a\n', ours: 'b\n', theirs: 'b \n' }, ctx)).toBeNull();
  });
});
