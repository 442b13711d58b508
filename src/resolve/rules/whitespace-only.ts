import { equalIgnoringWhitespace } from '../normalize.js';
import { indentationIsLayout, indentationOf } from './indentation.js';
import type { ResolutionRule } from './rule.js';

/**
 * The sides differ only in whitespace: the content is settled, only the layout
 * differs. Keeps ours (the branch being merged into), whose formatting the
 * surrounding file already follows. Where indentation can carry meaning
 * (Python, YAML, Makefiles, Markdown, any file type not known to be free-form)
 * the sides must also indent every line alike: a re-indented line may have
 * moved into or out of an indented block.
 */
export const whitespaceOnly: ResolutionRule = {
  name: 'whitespace-only',
  description: 'the sides differ only in whitespace; keep ours',
  enabledByDefault: true,
  cost: 'linear',
  resolve: ({ ours, theirs }, { path }) => {
    if (!equalIgnoringWhitespace(ours, theirs)) return null;
    if (!indentationIsLayout(path) && indentationOf(ours).join('\n') !== indentationOf(theirs).join('\n')) return null;
    return ours;
  },
};
