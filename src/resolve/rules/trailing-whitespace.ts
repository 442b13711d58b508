import { splitLinesKeep } from '../parse/lines.js';
import type { ResolutionRule } from './rule.js';

const trimEnd = (line: string): string => line.replace(/\s+$/, '');

/** Whether `side` is `base` with only trailing blanks of its lines added or removed (the same lines otherwise). */
function onlyTrailingBlanks(side: string, base: readonly string[]): boolean {
  const lines = splitLinesKeep(side);
  return lines.length === base.length && lines.every((l, i) => trimEnd(l) === trimEnd(base[i] as string));
}

/**
 * One side only added or removed blanks at the ends of lines (an editor that
 * strips them, a Markdown line break): the other side's change of content
 * wins. Measured on the corpus, the wider rule (any whitespace, as git's
 * `-Xignore-space-change`) was wrong: a side re-indented continuation lines
 * or removed a blank line next to the other side's new block, and the person
 * kept that layout with the other side's content, or kept neither.
 */
export const trailingWhitespace: ResolutionRule = {
  name: 'trailing-whitespace',
  description: 'one side only changed blanks at the ends of lines; take the other side',
  enabledByDefault: true,
  cost: 'superlinear',
  resolve: ({ base, ours, theirs }) => {
    if (base === null || base.trim() === '') return null;
    const baseLines = splitLinesKeep(base);
    const oursTrailing = onlyTrailingBlanks(ours, baseLines);
    const theirsTrailing = onlyTrailingBlanks(theirs, baseLines);
    if (oursTrailing === theirsTrailing) return null;
    return oursTrailing ? theirs : ours;
  },
};
