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

describe('tokenizeWords atoms', () => {
  it('keeps numbers, versions and hashes whole, and member access apart', () => {
    expect(tokenizeWords('packaging==23.1')).toEqual(['packaging', '=', '=', '23.1']);
    expect(tokenizeWords('FROM python:3.11-slim')).toEqual(['FROM', ' ', 'python', ':', '3.11-slim']);
    expect(tokenizeWords('v4.3.4 1.0.0-rc.1 0x1F 1e-5 b4ffde65f4')).toEqual(
      ['v4.3.4', '1.0.0-rc.1', '0x1F', '1e-5', 'b4ffde65f4'].flatMap((t, i) => (i === 0 ? [t] : [' ', t])),
    );
    expect(tokenizeWords('self.value = 2.')).toEqual(['self', '.', 'value', ' ', '=', ' ', '2', '.']);
  });
  it('never merges two edits inside one version', () => {
    expect(remergeWords.resolve({ base: 'a==1.2.3\n', ours: 'a==1.3.3\n', theirs: 'a==1.2.4\n' }, ctx)).toBeNull();
  });
});
