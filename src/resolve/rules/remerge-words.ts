import { cleanDiff3 } from './diff3-regions.js';
import type { ResolutionRule } from './rule.js';

/** Above this many tokens per side the word merge is skipped (its LCS is quadratic). */
const MAX_TOKENS = 3_000;

/**
 * One atom: a number or version with its parts (`23.1`, `v4.3.4`, `1.0.0-rc.1`, `3.11-slim`, `0x1F`, `1e-5`),
 * or a word (an identifier, a hash) with any numeric parts that follow it (`python3.11`, `x-1`). A rule never
 * looks inside one: `24.0` does not contain the edit `23` to `24` of `23.1` to `24.1`.
 */
const ATOM = String.raw`[vV]?\p{N}[\p{L}\p{N}_]*(?:[.\-+~][\p{L}\p{N}_]+)*|[\p{L}\p{N}_]+(?:[.\-]\p{N}[\p{L}\p{N}_]*)*`;
const TOKENS = new RegExp(String.raw`\n|[^\S\n]+|${ATOM}|[^\s\p{L}\p{N}_]`, 'gu');

/** Atoms (see `ATOM`), runs of blanks, line ends and single punctuation characters. */
export function tokenizeWords(text: string): string[] {
  return text.match(TOKENS) ?? [];
}

/**
 * Re-merge the hunk word by word: two edits on the same line that touch
 * different words merge cleanly. Off by default: on the corpus (400 hunks)
 * it resolved 138 alone, 87 equal to the person's, 47 wrong, 4 unaligned, 14
 * dropping a side the person kept (a clean token merge is often not what a
 * person writes). A strict word merge (git's rule on words: `strictDiff3`)
 * was measured too: 72 hunks, 36 right, 34 wrong, mostly a side's rename
 * carried into the other side's changed line where the person kept one side.
 */
export const remergeWords: ResolutionRule = {
  name: 'remerge-words',
  description: 'non-overlapping word edits inside the hunk, re-merged with a word-level diff3',
  enabledByDefault: false,
  cost: 'superlinear',
  resolve: ({ base, ours, theirs }) => {
    if (base === null) return null;
    const o = tokenizeWords(ours);
    const b = tokenizeWords(base);
    const t = tokenizeWords(theirs);
    if (o.length > MAX_TOKENS || b.length > MAX_TOKENS || t.length > MAX_TOKENS) return null;
    const merged = cleanDiff3(o, b, t);
    return merged === null ? null : merged.join('');
  },
};
