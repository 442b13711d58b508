import { describe, expect, it } from 'vitest';
import { adjacentLines } from './adjacent-lines.js';

const ctx = { path: 'f.txt', eol: '\n' as const };
const resolve = (base: string | null, ours: string, theirs: string): string | null =>
  adjacentLines.resolve({ base, ours, theirs }, ctx);

describe('adjacent-lines', () => {
  it('merges edits of neighbouring lines (corpus shape: two dependency bumps)', () => {
    const base = '    "typeorm-aurora-data-api-driver": "^1.4.0",\n    "typescript": "^4.2.2"\n';
    const ours = '    "typeorm-aurora-data-api-driver": "^1.4.0",\n    "typescript": "^4.2.3"\n';
    const theirs = '    "typeorm-aurora-data-api-driver": "^2.0.0",\n    "typescript": "^4.2.2"\n';
    expect(resolve(base, ours, theirs)).toBe(
      '    "typeorm-aurora-data-api-driver": "^2.0.0",\n    "typescript": "^4.2.3"\n',
    );
  });
  it('keeps a deletion and a neighbouring rewrite of different lengths (hand-written)', () => {
    expect(resolve('a\nb\nc\n', 'a\nc\n', 'a\nb\nC1\nC2\n')).toBe('a\nC1\nC2\n');
    expect(resolve('a\nb\nc\n', 'A\nb\nc\n', 'a\nB\nc\n')).toBe('A\nB\nc\n');
  });
  it('abstains when both changed a line, or one inserts right next to the other change', () => {
    expect(resolve('a\nb\n', 'A\nb\n', 'a2\nb\n')).toBeNull();
    expect(resolve('a\nb\n', 'a\nX\nb\n', 'a\nB\n')).toBeNull();
    expect(resolve('a\nb\n', 'A\nb\n', 'X\na\nb\n')).toBeNull();
    expect(resolve(null, 'a\n', 'b\n')).toBeNull();
  });
  it('is off by default (the corpus showed it wrong)', () => {
    expect(adjacentLines.enabledByDefault).toBe(false);
  });
});
