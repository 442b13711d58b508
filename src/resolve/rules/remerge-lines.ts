import { splitLinesKeep } from '../parse/lines.js';
import { cleanDiff3 } from './diff3-regions.js';
import type { ResolutionRule } from './rule.js';

/**
 * Re-merge the hunk's three sides line by line with a different diff: when the
 * edits of the two sides touch different lines, git's coarse hunk splits into
 * clean pieces.
 */
export const remergeLines: ResolutionRule = {
  name: 'remerge-lines',
  description: 'non-overlapping line edits inside the hunk, re-merged with a finer line diff',
  enabledByDefault: true,
  cost: 'superlinear',
  resolve: ({ base, ours, theirs }) => {
    if (base === null) return null;
    const merged = cleanDiff3(splitLinesKeep(ours), splitLinesKeep(base), splitLinesKeep(theirs));
    return merged === null ? null : merged.join('');
  },
};
