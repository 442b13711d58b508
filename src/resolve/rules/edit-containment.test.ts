import { describe, expect, it } from 'vitest';
import { editContains, editDistance } from './edit-containment.js';

const chars = (s: string): string[] => [...s];
const contains = (base: string, inner: string, outer: string): boolean =>
  editContains(chars(base), chars(inner), chars(outer));

describe('editDistance', () => {
  it('counts insertions plus deletions of a shortest script', () => {
    expect(editDistance(chars('abc'), chars('abc'))).toBe(0);
    expect(editDistance(chars('abc'), chars('aXc'))).toBe(2);
    expect(editDistance(chars(''), chars('xy'))).toBe(2);
  });
});

describe('editContains', () => {
  it('holds when the outer side made the inner edit and only added to it', () => {
    expect(contains('abc', 'abXc', 'abXcY')).toBe(true);
    expect(contains('abc', 'aXc', 'ZaXc')).toBe(true);
    // the inner side's replacement is kept and the outer side rewrote an untouched element too
    expect(contains('abc', 'aXc', 'aXC')).toBe(true);
    expect(contains('', 'x', 'xyz')).toBe(true);
  });
  it('fails when the edits differ or one side did nothing new', () => {
    expect(contains('abc', 'aXc', 'aYc')).toBe(false);
    expect(contains('abc', 'abc', 'abXc')).toBe(false);
    expect(contains('abc', 'aXc', 'aXc')).toBe(false);
  });
  it('fails on a pure deletion the outer side wrote over (modify/delete)', () => {
    expect(contains('abc', 'ac', 'aXc')).toBe(false);
    // a deletion elsewhere is fine
    expect(contains('abcd', 'acd', 'acdX')).toBe(true);
  });
  it('fails when the outer side silently drops what the inner side kept', () => {
    expect(contains('ab', 'Xab', 'X')).toBe(false);
    expect(contains('abc', 'abcX', 'acX')).toBe(false);
  });
});
