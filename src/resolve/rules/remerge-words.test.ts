import { describe, expect, it } from 'vitest';
import { remergeWords, tokenizeWords } from './remerge-words.js';

const ctx = { path: 'f.txt', eol: '\n' as const };

describe('remerge-words', () => {
  it('tokenizes losslessly', () => {
    for (const s of ['f(a, b) // c\r\n', '  x\ty\n\n', 'naïve = "ü";\r', '']) expect(tokenizeWords(s).join('')).toBe(s);
  });
  it('merges edits of different words on one line', () => {
    expect(
      remergeWords.resolve(
        {
          base: 'call(alpha, beta, gamma)\n',
          ours: 'call(ALPHA, beta, gamma)\n',
          theirs: 'call(alpha, beta, GAMMA)\n',
        },
        ctx,
      ),
    ).toBe('call(ALPHA, beta, GAMMA)\n');
    expect(remergeWords.resolve({ base: 'x = 1\n', ours: 'x = 2\n', theirs: 'x = 3\n' }, ctx)).toBeNull();
  });
  it('is off by default (the corpus showed it wrong)', () => {
    expect(remergeWords.enabledByDefault).toBe(false);
  });
});
