import { describe, expect, it } from 'vitest';
import { diagramChar } from '../imerge/diagram.js';
import { decodeLetter, decodeRuns, diagramCharOf, encodeRuns, mergeLetter, nodeLetter } from './grid-codes.js';

describe('grid letters', () => {
  it('print every git-imerge diagram node as git-imerge does', () => {
    for (let merge = 0; merge <= 4; merge++) {
      for (const flags of [0, 0x10, 0x20, 0x40, 0x60, 0x70]) {
        const node = merge | flags;
        expect(diagramCharOf(nodeLetter(node))).toBe(diagramChar(node));
      }
    }
  });

  it('decode what they encode', () => {
    expect(decodeLetter(nodeLetter(2 | 0x20 | 0x40))).toEqual({ merge: 2, right: true, bottom: true });
    expect(decodeLetter(mergeLetter(3))).toEqual({ merge: 3, right: false, bottom: false });
  });

  it('run-length encode losslessly and compactly', () => {
    const letters = 'aaaaabccc' + 'c'.repeat(1000) + 'd';
    expect(encodeRuns('aaab')).toBe('3a1b');
    expect(decodeRuns(encodeRuns(letters))).toBe(letters);
    expect(encodeRuns('c'.repeat(1_000_000))).toBe('1000000c');
    expect(encodeRuns('')).toBe('');
  });
});
