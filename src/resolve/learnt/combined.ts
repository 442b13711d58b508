import { splitLinesKeep } from '../parse/lines.js';
import { adjacentLines } from '../rules/adjacent-lines.js';
import { diffRegions } from '../rules/myers-diff.js';
import { remergeWords } from '../rules/remerge-words.js';
import type { HunkSides } from '../rules/rule.js';

/** Lines that carry something (trimmed, longer than 3 characters): what "kept a line of a side" compares. */
function telling(text: string | null): Set<string> {
  return new Set(
    (text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length > 3),
  );
}

/**
 * Whether `resolved` keeps both sides' work: at least one line only the fork wrote and one only
 * upstream wrote (neither in the base nor on the other side). A maintainer's text of that kind is
 * a combination of the two, possibly edited, not a third text of their own.
 */
export function keepsBothSides(sides: HunkSides, resolved: string): boolean {
  const base = telling(sides.base);
  const ours = telling(sides.ours);
  const theirs = telling(sides.theirs);
  const kept = telling(resolved);
  const own = (side: Set<string>, other: Set<string>): string[] =>
    [...side].filter((l) => !base.has(l) && !other.has(l));
  return own(ours, theirs).some((l) => kept.has(l)) && own(theirs, ours).some((l) => kept.has(l));
}

/**
 * Both sides combined in one text: the edits of neighbouring lines merged line by line, else the
 * word edits re-merged, else every line of both sides with the lines they share written once
 * (at each place they differ, the fork's lines first). A starting point for a hunk the maintainer
 * used to combine; it is never taken without the person asking for it.
 */
export function combinedText(sides: HunkSides): string {
  const context = { path: '', eol: '\n' as const };
  const merged = adjacentLines.resolve(sides, context) ?? remergeWords.resolve(sides, context);
  if (merged !== null) return merged;
  const ours = splitLinesKeep(sides.ours);
  const theirs = splitLinesKeep(sides.theirs);
  const regions = diffRegions(ours, theirs);
  if (regions === null) return sides.ours + sides.theirs;
  const out: string[] = [];
  let at = 0;
  for (const r of regions) {
    out.push(...ours.slice(at, r.aStart + r.aLength), ...theirs.slice(r.bStart, r.bStart + r.bLength));
    at = r.aStart + r.aLength;
  }
  out.push(...ours.slice(at));
  // A side's last line without a line break would glue the next line to it.
  return out.map((l, i) => (i < out.length - 1 && !l.endsWith('\n') ? `${l}\n` : l)).join('');
}
