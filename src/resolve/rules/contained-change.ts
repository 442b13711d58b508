import { splitLinesKeep } from '../parse/lines.js';
import { editContains } from './edit-containment.js';
import { bothRewroteFile, restoresDeletedLine } from './independent-rewrites.js';
import { repeatsLinesOutside } from './moved-code.js';
import { diffRegions } from './myers-diff.js';
import { tokenizeWords } from './remerge-words.js';
import type { ResolutionRule } from './rule.js';

/**
 * The text as the rule compares it: each line starts with a token holding its
 * indentation (so line breaks and indentation count, as they do in Python or
 * YAML), followed by its words and punctuation; spacing inside a line and
 * trailing blanks do not count.
 */
export function contentTokens(text: string): string[] {
  const out: string[] = [];
  for (const line of splitLinesKeep(text)) {
    const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
    out.push(`\n${indent}`);
    for (const t of tokenizeWords(line.slice(indent.length))) if (!/^\s+$/.test(t)) out.push(t);
  }
  return out;
}

/**
 * Whether `outer` goes further than `inner` only in semicolons and commas
 * (line breaks aside): the same change written in another style, where
 * style guides differ (a fork that drops semicolons, trailing commas), and
 * which style the file keeps is a person's choice, not a larger change.
 * Other marks carry meaning (`../` in a path, a quote where a string is
 * wrapped otherwise) and stay a larger change.
 */
function furtherOnlyInTerminators(inner: readonly string[], outer: readonly string[]): boolean {
  const regions = diffRegions(inner, outer);
  if (regions === null) return false;
  const added = regions.flatMap((r) => outer.slice(r.bStart, r.bStart + r.bLength)).filter((t) => !t.startsWith('\n'));
  return added.length > 0 && added.every((t) => t === ';' || t === ',');
}

/** Lines of `outer` that `inner` does not have, in order (all of `outer` when they are too different to diff). */
function linesAdded(inner: string, outer: string): string {
  const a = splitLinesKeep(inner);
  const b = splitLinesKeep(outer);
  const regions = diffRegions(a, b);
  if (regions === null) return outer;
  return regions.flatMap((r) => b.slice(r.bStart, r.bStart + r.bLength)).join('');
}

/**
 * One side's change contains the other's: everything the smaller side changed
 * in the region (relative to the base) the larger side changed the same way,
 * and the larger side only adds edits on top (both sides took the same
 * cherry-picked fix and one went further; both inserted the same import and
 * one also renamed a call next to it). Applying both changes is then exactly
 * the larger side, which is what a three-way merge gives once it sees the
 * shared edit as shared; git only stopped because the edits touch.
 *
 * Compared as tokens (words and punctuation; line breaks and indentation
 * count, spacing inside a line does not). Abstains when the smaller side
 * purely deleted text where the larger side wrote something (modify/delete),
 * when the larger side silently drops text the smaller side kept, and when the
 * larger side's extra lines repeat a run of three or more lines found
 * elsewhere in the file (the other side moved that code).
 *
 * Corpus (400 hunks): alone 24 resolved, all 24 as the person did, 0 sides
 * dropped. Each guard was measured: without the moved-code check 27 resolved,
 * 1 wrong; letting the larger side drop lines silently 34, 1 wrong; comparing
 * whole lines instead of tokens only 14. Without the modify/delete check it
 * would resolve 31 with none wrong, but those extra hunks are exactly the
 * guesses it exists to stop (`AC_INIT(tmux, 2.7-rc)` made `2.7` on one side
 * and `master` on the other). Requiring the smaller change to stay contiguous
 * in the larger (a version line "contained" as a scattered subsequence
 * was a downgrade) costs one corpus hunk, `int status;` inside
 * `int full_size = ..., status;`, which has the downgrade's shape.
 * Replaying the merge history of three JavaScript forks (`splintercat eval
 * --repo` on ../shared/real-histories) found it wrong 3 times out of 4 on
 * serve-static: both sides rewrote a function alike, upstream with
 * semicolons, and the fork kept its own style. A larger side that only adds
 * semicolons or commas is now left alone (no corpus hunk lost).
 */
export const containedChange: ResolutionRule = {
  name: 'contained-change',
  description: "one side's change contains the other's; take the larger change",
  enabledByDefault: true,
  cost: 'superlinear',
  resolve: ({ base, ours, theirs }, context) => {
    if (base === null) return null;
    const b = contentTokens(base);
    const o = contentTokens(ours);
    const t = contentTokens(theirs);
    const larger = editContains(b, t, o) ? 'ours' : editContains(b, o, t) ? 'theirs' : null;
    if (larger === null) return null;
    const [inner, outer, innerTokens, outerTokens] = larger === 'ours' ? [theirs, ours, t, o] : [ours, theirs, o, t];
    if (furtherOnlyInTerminators(innerTokens, outerTokens)) return null;
    if (context.outside !== undefined && repeatsLinesOutside(linesAdded(inner, outer), context.outside)) return null;
    if (restoresDeletedLine(base, inner, outer)) return null;
    if (context.files !== undefined && bothRewroteFile(context.files)) return null;
    return outer;
  },
};
