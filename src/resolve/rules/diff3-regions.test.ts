import { describe, expect, it } from 'vitest';
import { strictDiff3 } from './diff3-regions.js';

const lines = (s: string): string[] => s.split(/(?<=\n)/);
const merge = (ours: string, base: string, theirs: string): string | null =>
  strictDiff3(lines(ours), lines(base), lines(theirs))?.join('') ?? null;

describe('strictDiff3', () => {
  it('applies both sides’ edits when a line with words lies between them', () => {
    expect(merge('A\nb\nc\n', 'a\nb\nc\n', 'a\nb\nC\n')).toBe('A\nb\nC\n');
  });

  it('refuses edits that overlap or touch, as git does', () => {
    expect(merge('A\nb\n', 'a\nb\n', 'a\nB\n')).toBeNull();
    expect(merge('x\na\nb\n', 'a\nb\n', 'A\nb\n')).toBeNull();
  });

  it('refuses edits apart only by lines a diff can align elsewhere (blank, a lone brace)', () => {
    expect(merge('A\n\nc\n', 'a\n\nc\n', 'a\n\nC\n')).toBeNull();
    expect(merge('f() {\n  A\n}\ng\n', 'f() {\n  a\n}\ng\n', 'f() {\n  a\n}\nG\n')).toBeNull();
  });

  it('takes an edit both sides made once', () => {
    expect(merge('a\nX\nb\nc\n', 'a\nb\nc\n', 'a\nX\nb\nC\n')).toBe('a\nX\nb\nC\n');
  });
});
