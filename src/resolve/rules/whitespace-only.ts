import { equalIgnoringWhitespace } from '../normalize.js';
import type { ResolutionRule } from './rule.js';

/**
 * The sides differ only in whitespace: the content is settled, only the layout
 * differs. Keeps ours (the branch being merged into), whose formatting the
 * surrounding file already follows.
 */
export const whitespaceOnly: ResolutionRule = {
  name: 'whitespace-only',
  description: 'the sides differ only in whitespace; keep ours',
  enabledByDefault: true,
  resolve: ({ ours, theirs }) => (equalIgnoringWhitespace(ours, theirs) ? ours : null),
};
