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
