import { describe, expect, it } from 'vitest';
import { whitespaceOnly } from './whitespace-only.js';

const ctx = { path: 'f.txt', eol: '\n' as const };

describe('whitespace-only', () => {
  it('keeps ours when the sides differ only in whitespace', () => {
    expect(whitespaceOnly.resolve({ base: 'x\n', ours: 'f(a,  b)\n', theirs: '  f(a, b)\n\n' }, ctx)).toBe('f(a,  b)\n');
  });
  it('refuses a real difference', () => {
    expect(whitespaceOnly.resolve({ base: 'x\n', ours: 'f(a, b)\n', theirs: 'f(a,b)\n' }, ctx)).toBeNull();
  });
});
