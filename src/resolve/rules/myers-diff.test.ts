import { describe, expect, it } from 'vitest';
import { diffRegions, type DiffRegion } from './myers-diff.js';

/** Longest common subsequence length by dynamic programming (the reference). */
function lcsLength(a: string[], b: string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const cur = [0];
    for (let j = 1; j <= b.length; j++)
      cur[j] = x === b[j - 1] ? (prev[j - 1] as number) + 1 : Math.max(prev[j] as number, cur[j - 1] as number);
    prev = cur;
  }
  return prev[b.length] as number;
}

function apply(a: string[], b: string[], regions: DiffRegion[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const r of regions) {
    out.push(...a.slice(at, r.aStart), ...b.slice(r.bStart, r.bStart + r.bLength));
    at = r.aStart + r.aLength;
  }
  return [...out, ...a.slice(at)];
}

describe('diffRegions', () => {
  it('finds a shortest edit script whose regions rebuild the target', () => {
    let state = 7;
    const next = (): number => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let n = 0; n < 2000; n++) {
      const gen = (): string[] =>
        Array.from({ length: Math.floor(next() * 14) }, () => 'abcd'[Math.floor(next() * 4)] as string);
      const a = gen();
      const b = gen();
      const regions = diffRegions(a, b) as DiffRegion[];
      expect(regions.reduce((d, r) => d + r.aLength + r.bLength, 0)).toBe(a.length + b.length - 2 * lcsLength(a, b));
      expect(apply(a, b, regions)).toEqual(b);
    }
  });
  it('gives up past the edit limit', () => {
    expect(diffRegions([...'abcdef'], [...'uvwxyz'], 5)).toBeNull();
    expect(diffRegions([...'abcdef'], [...'abXdef'], 2)).toEqual([{ aStart: 2, aLength: 1, bStart: 2, bLength: 1 }]);
  });
});
