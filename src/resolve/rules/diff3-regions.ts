import { diff3Merge } from 'node-diff3';
import { diffRegions, type DiffRegion } from './myers-diff.js';

/**
 * A clean three-way merge of token sequences with node-diff3 (its own LCS, a
 * different alignment from git's xdiff); null when any region still conflicts.
 * Adjacent changes count as conflicts, as in git.
 */
export function cleanDiff3(ours: string[], base: string[], theirs: string[]): string[] | null {
  const regions = diff3Merge(ours, base, theirs, { excludeFalseConflicts: true }) as Array<
    { ok: string[] } | { conflict: { a: string[]; o: string[]; b: string[] } }
  >;
  const out: string[] = [];
  for (const region of regions) {
    if ('conflict' in region) return null;
    out.push(...region.ok);
  }
  return out;
}

/**
 * A clean three-way merge of lines with git's rule for what conflicts: each
 * side's changes against the base (Myers' diff), applied together only where
 * no change of one side overlaps or touches one of the other, identical
 * changes taken once. Changes count as touching also when only lines with
 * no word in them (blank, a lone brace) lie between them: a diff may align
 * such a line either way (git's may have held the two changes together), so
 * it proves nothing. Null when
 * any pair touches, or a diff is too large. node-diff3 (`cleanDiff3`) aligns
 * with its own LCS and can split changes git holds together; where a merge
 * must be as strict as git, use this.
 */
export function strictDiff3(
  ours: readonly string[],
  base: readonly string[],
  theirs: readonly string[],
): string[] | null {
  const o = diffRegions(base, ours);
  const t = diffRegions(base, theirs);
  if (o === null || t === null) return null;
  type Edit = { r: DiffRegion; side: readonly string[] };
  const edits: Edit[] = [...o.map((r) => ({ r, side: ours })), ...t.map((r) => ({ r, side: theirs }))].sort(
    (x, y) => x.r.aStart - y.r.aStart || x.r.aLength - y.r.aLength,
  );
  const text = (e: Edit): readonly string[] => e.side.slice(e.r.bStart, e.r.bStart + e.r.bLength);
  const out: string[] = [];
  let at = 0;
  // The latest edit of each side, taken or (identical to the other's) skipped.
  const latest = new Map<readonly string[], Edit>();
  for (const e of edits) {
    const other = latest.get(e.side === ours ? theirs : ours);
    latest.set(e.side, e);
    // Overlapping, adjacent, or apart by lines a diff can align elsewhere: the edits touch, and only the same edit is taken (once).
    if (other !== undefined && base.slice(other.r.aStart + other.r.aLength, e.r.aStart).every(alignsAnywhere)) {
      if (e.r.aStart === other.r.aStart && e.r.aLength === other.r.aLength && sameItems(text(e), text(other))) continue;
      return null;
    }
    out.push(...base.slice(at, e.r.aStart), ...text(e));
    at = e.r.aStart + e.r.aLength;
  }
  out.push(...base.slice(at));
  return out;
}

/** A line with no letter or digit (blank, `}`, `);`): a diff can match it with many others. */
const alignsAnywhere = (line: string): boolean => !/[\p{L}\p{N}]/u.test(line);

function sameItems(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
