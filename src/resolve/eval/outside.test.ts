import { describe, expect, it } from 'vitest';
import { parseConflictText } from '../parse/markers.js';
import { editedOutside } from './outside.js';
import { canonicalUnordered } from './unordered.js';

const file = parseConflictText('a\n<<<<<<< ours\nb\n||||||| base\nx\n=======\nc\n>>>>>>> theirs\nd\n', {
  path: 'f.txt',
});

describe('editedOutside', () => {
  it('is false when the person only replaced the hunk, whatever with', () => {
    expect(editedOutside(file, 'a\nanything\nat all\nd\n')).toBe(false);
    expect(editedOutside(file, 'a\n  d\n')).toBe(false);
  });
  it('is true when the person also changed a line git merged cleanly', () => {
    expect(editedOutside(file, 'A\nb\nd\n')).toBe(true);
    expect(editedOutside(file, 'a\nb\nd\ne\n')).toBe(true);
  });
});

describe('canonicalUnordered', () => {
  it('is the same for two files that differ only in the order of unordered siblings', async () => {
    const a = '{\n  "x": 1,\n  "y": { "p": 1, "q": 2 }\n}\n';
    const b = '{\n  "y": { "q": 2, "p": 1 },\n  "x": 1\n}\n';
    expect(await canonicalUnordered('p.json', a)).toBe(await canonicalUnordered('p.json', b));
    const c1 = 'class A:\n    x = 1\n    y = 2\n';
    const c2 = 'class A:\n    y = 2\n    x = 1\n';
    expect(await canonicalUnordered('a.py', c1)).toBe(await canonicalUnordered('a.py', c2));
  });
  it('differs when the order of ordered siblings (top-level statements) or a value differs', async () => {
    expect(await canonicalUnordered('a.py', 'x = 1\ny = 2\n')).not.toBe(
      await canonicalUnordered('a.py', 'y = 2\nx = 1\n'),
    );
    expect(await canonicalUnordered('p.json', '{"a": 1}')).not.toBe(await canonicalUnordered('p.json', '{"a": 2}'));
    expect(await canonicalUnordered('notes.txt', 'a')).toBeNull();
  });
});
