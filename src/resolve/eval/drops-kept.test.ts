import { describe, expect, it } from 'vitest';
import { dropsWhatPersonKept } from './drops-kept.js';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

describe('dropsWhatPersonKept', () => {
  const base = lines('a', 'b', 'c');
  const ours = lines('a', 'fork1', 'fork2', 'b', 'c');
  const theirs = lines('a', 'b', 'up', 'c');
  const both = lines('a', 'fork1', 'fork2', 'b', 'up', 'c');
  const c = { id: 'x', path: 'f.js', base, ours, theirs, resolved: both };

  it('is true for a resolution missing fork lines the person kept', () => {
    expect(dropsWhatPersonKept(c, theirs)).toBe(true);
  });

  it('is false when the person dropped the same lines, or nothing is lost', () => {
    expect(dropsWhatPersonKept({ ...c, resolved: theirs }, theirs)).toBe(false);
    expect(dropsWhatPersonKept(c, both)).toBe(false);
  });

  it('counts a deleted file against a person who kept the side’s change', () => {
    expect(dropsWhatPersonKept({ ...c, ours: null }, null)).toBe(true);
    expect(dropsWhatPersonKept({ ...c, ours: null, resolved: null }, null)).toBe(false);
  });
});
