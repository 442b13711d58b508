import { describe, expect, it } from 'vitest';
import { trailingWhitespace } from './trailing-whitespace.js';

const ctx = { path: 'README.md', eol: '\n' as const };

describe('trailing-whitespace', () => {
  it('takes theirs when ours only stripped blanks at the ends of lines, and ours in the mirror case', () => {
    const base = 'Working with database starts here. \nAnswer is: models.  \n';
    const ours = 'Working with database starts here.\nAnswer is: models.\n';
    const theirs = 'Working with a database starts here. \nThe answer is: models.  \n';
    expect(trailingWhitespace.resolve({ base, ours, theirs }, ctx)).toBe(theirs);
    expect(trailingWhitespace.resolve({ base, ours: theirs, theirs: ours }, ctx)).toBe(theirs);
  });
  it('abstains when both sides changed content, or both only changed trailing blanks', () => {
    expect(trailingWhitespace.resolve({ base: 'a\n', ours: 'b\n', theirs: 'c\n' }, ctx)).toBeNull();
    expect(trailingWhitespace.resolve({ base: 'a\n', ours: 'a \n', theirs: 'a\t\n' }, ctx)).toBeNull();
  });
  it('abstains on any other layout change: re-indentation, a blank line removed, lines joined, a blank base', () => {
    const theirs = '\tif (x) {\n\t\tgo();\n';
    expect(
      trailingWhitespace.resolve(
        { base: '\tcall(a,\n\t      b);\n', ours: '\tcall(a,\n\t\tb);\n', theirs },
        { ...ctx, path: 'a.c' },
      ),
    ).toBeNull();
    expect(
      trailingWhitespace.resolve({ base: '\n\tif (x)\n', ours: '\tif (x)\n', theirs }, { ...ctx, path: 'a.c' }),
    ).toBeNull();
    expect(trailingWhitespace.resolve({ base: 'one\ntwo\n', ours: 'one two\n', theirs: 'one\n2\n' }, ctx)).toBeNull();
    expect(
      trailingWhitespace.resolve({ base: '\n', ours: '', theirs: 'X = 1\n\n' }, { ...ctx, path: 'conf.py' }),
    ).toBeNull();
    expect(trailingWhitespace.resolve({ base: null, ours: 'a\n', theirs: 'b\n' }, ctx)).toBeNull();
  });
});
