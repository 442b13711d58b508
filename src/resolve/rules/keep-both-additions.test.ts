import { describe, expect, it } from 'vitest';
import { keepBothAdditions } from './keep-both-additions.js';

const ctx = { path: 'f.ts', eol: '\n' as const };
const resolve = (base: string | null, ours: string, theirs: string): string | null =>
  keepBothAdditions.resolve({ base, ours, theirs }, ctx);

describe('keep-both-additions', () => {
  it('keeps both insertions, ours first (corpus shape: two imports)', () => {
    expect(resolve('', 'import {A} from "./a";\n', 'import {B} from "./b";\n')).toBe(
      'import {A} from "./a";\nimport {B} from "./b";\n',
    );
  });
  it('abstains unless both sides purely added whole lines', () => {
    expect(resolve('old\n', 'a\n', 'b\n')).toBeNull();
    expect(resolve(null, 'a\n', 'b\n')).toBeNull();
    expect(resolve('', 'a', 'b\n')).toBeNull();
    expect(resolve('', '\n', 'b\n')).toBeNull();
  });
  it('is off by default (people order or drop additions as they see fit)', () => {
    expect(keepBothAdditions.enabledByDefault).toBe(false);
  });
});
