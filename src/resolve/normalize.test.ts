import { describe, expect, it } from 'vitest';
import { equalIgnoringWhitespace, normalizeForPath, normalizeWhitespace } from './normalize.js';

describe('normalizeWhitespace', () => {
  it('unifies line ends, trims lines, collapses blanks and drops blank lines', () => {
    expect(normalizeWhitespace('  a   b \r\n\n\tc\n')).toBe('a b\nc');
    expect(equalIgnoringWhitespace('f(a,  b)\n', '  f(a, b)\n\n')).toBe(true);
  });
});

describe('normalizeForPath', () => {
  it('keeps indentation where it can carry meaning', () => {
    const inside = 'if a:\n    x()\n    y()\n';
    const outside = 'if a:\n    x()\ny()\n';
    expect(normalizeForPath(inside, 'tasks.py')).not.toBe(normalizeForPath(outside, 'tasks.py'));
    expect(normalizeForPath('f(a,  b)  \n\n', 'tasks.py')).toBe(normalizeForPath('f(a, b)\n', 'tasks.py'));
    expect(normalizeForPath(inside, 'main.c')).toBe(normalizeForPath(outside, 'main.c'));
  });
});
