import { describe, expect, it } from 'vitest';
import { repeatsLinesOutside } from './moved-code.js';

describe('repeatsLinesOutside', () => {
  const file = 'def a():\n    x = 1\n    return x\n\n\ndef b():\n    return 2\n';
  it('finds a block of three lines the file already has, ignoring spacing and blank lines', () => {
    expect(repeatsLinesOutside('def a():\n  x  = 1\n\n  return x\n', file)).toBe(true);
  });
  it('ignores shorter runs and common two-line tails', () => {
    expect(repeatsLinesOutside('    return x\n}\n', file)).toBe(false);
    expect(repeatsLinesOutside('def c():\n    x = 1\n    return x\n', file)).toBe(false);
  });
});
