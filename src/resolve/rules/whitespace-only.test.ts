import { describe, expect, it } from 'vitest';
import { whitespaceOnly } from './whitespace-only.js';

const ctx = { path: 'f.c', eol: '\n' as const };

describe('whitespace-only', () => {
  it('keeps ours when the sides differ only in whitespace', () => {
    expect(whitespaceOnly.resolve({ base: 'x\n', ours: 'f(a,  b)\n', theirs: '  f(a, b)\n\n' }, ctx)).toBe(
      'f(a,  b)\n',
    );
  });
  it('refuses a real difference', () => {
    expect(whitespaceOnly.resolve({ base: 'x\n', ours: 'f(a, b)\n', theirs: 'f(a,b)\n' }, ctx)).toBeNull();
  });
  it('treats indentation as content where it can carry meaning', () => {
    const ours = 'if a:\n    x()\ny()\n';
    const theirs = 'if a:\n    x()\n    y()\n';
    expect(whitespaceOnly.resolve({ base: 'x\n', ours, theirs }, { ...ctx, path: 'tasks.py' })).toBeNull();
    expect(whitespaceOnly.resolve({ base: 'x\n', ours, theirs }, { ...ctx, path: 'Makefile' })).toBeNull();
    expect(whitespaceOnly.resolve({ base: 'x\n', ours, theirs }, { ...ctx, path: 'main.c' })).toBe(ours);
    // spacing inside lines and trailing blanks are still layout in Python
    expect(
      whitespaceOnly.resolve({ base: 'x\n', ours: 'f(a,  b)  \n', theirs: 'f(a, b)\n' }, { ...ctx, path: 'tasks.py' }),
    ).toBe('f(a,  b)  \n');
  });
});
