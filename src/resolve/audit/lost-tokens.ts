import { diffRegions } from '../rules/myers-diff.js';
import { tokenizeWords } from '../rules/remerge-words.js';

/** Past these sizes a line is not compared token by token: it counts as dropped when it is not kept whole. */
const MAX_LINE_TOKENS = 400;
const MAX_CANDIDATES = 40;

function words(text: string): string[] {
  return tokenizeWords(text).filter((t) => t.trim() !== '');
}

/** The tokens of `a` that `b` does not have at their place (the deletions of a token diff). */
function missingTokens(a: readonly string[], b: readonly string[]): string[] | null {
  const regions = diffRegions(a, b, MAX_LINE_TOKENS);
  if (regions === null) return null;
  return regions.flatMap((r) => a.slice(r.aStart, r.aStart + r.aLength));
}

/** Whether some word (not only punctuation) of `mine` is not among the `lost` tokens. */
function keepsAWord(mine: readonly string[], lost: readonly string[]): boolean {
  const wordCount = (list: readonly string[]): number => list.filter((t) => /[\p{L}\p{N}]/u.test(t)).length;
  return wordCount(mine) > wordCount(lost);
}

/** The tokens of some lines, for `lostTokens`'s `baseTokens`. */
export function tokenSet(lines: readonly string[]): Set<string> {
  return new Set(lines.flatMap(words));
}

/**
 * The line among `candidates` (the resolution's lines in place of `text`) that keeps most of
 * `text`'s tokens, and the tokens of the side's own it lost (a token of the base's lines,
 * `baseTokens`, is not the side's change: the other side may have changed it); null when none
 * keeps a word (the line is dropped, not rewritten). An empty `lost` means the side's edit of the
 * line survived: both sides' edits merged.
 */
export function lostTokens(
  text: string,
  candidates: readonly string[],
  baseTokens: ReadonlySet<string>,
): { lost: string[]; into: string } | null {
  const mine = words(text);
  if (mine.length === 0 || mine.length > MAX_LINE_TOKENS) return null;
  let best: { lost: string[]; into: string } | null = null;
  for (const into of candidates.slice(0, MAX_CANDIDATES)) {
    const theirs = words(into);
    if (theirs.length > MAX_LINE_TOKENS) continue;
    let lost = missingTokens(mine, theirs);
    if (lost === null || !keepsAWord(mine, lost)) continue;
    lost = lost.filter((t) => !baseTokens.has(t));
    if (best === null || lost.length < best.lost.length) best = { lost, into };
  }
  return best;
}
