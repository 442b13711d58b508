import { describe, expect, it } from 'vitest';
import { identicalSides } from './identical-sides.js';
import { allRules, selectRules, unknownRuleNames } from './index.js';
import { oneSideUnchanged } from './one-side-unchanged.js';
import { remergeLines } from './remerge-lines.js';
import { remergeWords, tokenizeWords } from './remerge-words.js';
import { whitespaceOnly } from './whitespace-only.js';

const ctx = { path: 'f.txt', eol: '\n' as const };

describe('identical-sides', () => {
  it('takes the shared change and nothing else', () => {
    expect(identicalSides.resolve({ base: 'a\n', ours: 'b\n', theirs: 'b\n' }, ctx)).toBe('b\n');
    expect(identicalSides.resolve({ base: 'a\n', ours: 'b\n', theirs: 'b \n' }, ctx)).toBeNull();
  });
});

describe('one-side-unchanged', () => {
  it('takes the side that changed', () => {
    expect(oneSideUnchanged.resolve({ base: 'a\n', ours: 'a\n', theirs: 'c\n' }, ctx)).toBe('c\n');
    expect(oneSideUnchanged.resolve({ base: 'a\n', ours: 'b\n', theirs: 'a\n' }, ctx)).toBe('b\n');
  });
  it('needs a base and an exactly unchanged side', () => {
    expect(oneSideUnchanged.resolve({ base: null, ours: 'a\n', theirs: 'c\n' }, ctx)).toBeNull();
    expect(oneSideUnchanged.resolve({ base: 'a\n', ours: 'a \n', theirs: 'c\n' }, ctx)).toBeNull();
  });
});

describe('whitespace-only', () => {
  it('keeps ours when the sides differ only in whitespace', () => {
    expect(whitespaceOnly.resolve({ base: 'x\n', ours: 'f(a,  b)\n', theirs: '  f(a, b)\n\n' }, ctx)).toBe('f(a,  b)\n');
  });
  it('refuses a real difference', () => {
    expect(whitespaceOnly.resolve({ base: 'x\n', ours: 'f(a, b)\n', theirs: 'f(a,b)\n' }, ctx)).toBeNull();
  });
});

describe('remerge-lines', () => {
  it('merges edits of different lines that git grouped into one hunk', () => {
    const base = 'a\nb\nc\nd\ne\n';
    expect(remergeLines.resolve({ base, ours: 'A\nb\nc\nd\ne\n', theirs: 'a\nb\nc\nd\nE\n' }, ctx)).toBe('A\nb\nc\nd\nE\n');
  });
  it('leaves overlapping and adjacent edits alone', () => {
    expect(remergeLines.resolve({ base: 'a\nb\n', ours: 'A\nb\n', theirs: 'a2\nb\n' }, ctx)).toBeNull();
    expect(remergeLines.resolve({ base: 'a\nb\n', ours: 'A\nb\n', theirs: 'a\nB\n' }, ctx)).toBeNull();
    expect(remergeLines.resolve({ base: null, ours: 'A\n', theirs: 'B\n' }, ctx)).toBeNull();
  });
});

describe('remerge-words', () => {
  it('tokenizes losslessly', () => {
    for (const s of ['f(a, b) // c\r\n', '  x\ty\n\n', 'naïve = "ü";\r', '']) expect(tokenizeWords(s).join('')).toBe(s);
  });
  it('merges edits of different words on one line', () => {
    expect(remergeWords.resolve({ base: 'call(alpha, beta, gamma)\n', ours: 'call(ALPHA, beta, gamma)\n', theirs: 'call(alpha, beta, GAMMA)\n' }, ctx)).toBe(
      'call(ALPHA, beta, GAMMA)\n',
    );
    expect(remergeWords.resolve({ base: 'x = 1\n', ours: 'x = 2\n', theirs: 'x = 3\n' }, ctx)).toBeNull();
  });
  it('is off by default (the corpus showed it wrong)', () => {
    expect(remergeWords.enabledByDefault).toBe(false);
  });
});

describe('selectRules', () => {
  it('applies config overrides by name', () => {
    expect(selectRules().map((r) => r.name)).toEqual(allRules.filter((r) => r.enabledByDefault).map((r) => r.name));
    expect(selectRules({ 'remerge-words': true }).map((r) => r.name)).toContain('remerge-words');
    expect(selectRules({ 'whitespace-only': false }).map((r) => r.name)).not.toContain('whitespace-only');
    expect(unknownRuleNames({ 'whitespace-onyl': true, 'remerge-lines': false })).toEqual(['whitespace-onyl']);
  });
});
