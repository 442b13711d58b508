import type { ResolutionRule } from './rules/index.js';
import type { ConflictHunk } from './types.js';

/**
 * Past these sizes, text is too large for the rungs that tokenize, diff or parse it (a minified
 * bundle, a generated file on one 10 MB line): their memory grows with the square of a line or
 * with a parse tree, and their answer is not worth it. The linear rules still run; the rest is
 * left to the next rung (the model sees the text bounded, a person decides).
 */
const LARGE_HUNK_CHARS = 256 * 1024;
const LARGE_FILE_CHARS = 2 * 1024 * 1024;

/** Whether any side of the hunk is large. */
function isLargeHunk(hunk: Pick<ConflictHunk, 'base' | 'ours' | 'theirs'>): boolean {
  return Math.max(hunk.base?.length ?? 0, hunk.ours.length, hunk.theirs.length) > LARGE_HUNK_CHARS;
}

/** The rules to try on a hunk: all of them, or those whose `cost` is linear for a large hunk. */
export function rulesForHunk(
  hunk: Pick<ConflictHunk, 'base' | 'ours' | 'theirs'>,
  rules: readonly ResolutionRule[],
): readonly ResolutionRule[] {
  return isLargeHunk(hunk) ? rules.filter((r) => r.cost === 'linear') : rules;
}

/** Whether texts (a file's versions) are small enough to be parsed (syntax-aware merge, syntax checks). */
export function fitsParser(...texts: Array<string | null | undefined>): boolean {
  return texts.reduce((n, t) => n + (t?.length ?? 0), 0) <= LARGE_FILE_CHARS;
}
