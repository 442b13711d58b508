import { diffRegions, type DiffRegion } from './myers-diff.js';

const size = (regions: readonly DiffRegion[]): number => regions.reduce((d, r) => d + r.aLength + r.bLength, 0);

/** Insertions plus deletions of a shortest edit script from `a` to `b`; null past the diff's edit limit. */
export function editDistance<T>(a: readonly T[], b: readonly T[]): number | null {
  const regions = diffRegions(a, b);
  return regions === null ? null : size(regions);
}

function counts<T>(xs: readonly T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

/**
 * A cheap necessary condition: on a shortest path nothing `inner` inserted is
 * deleted again, so `outer` has at least as many of each element as `inner`
 * has beyond `base`.
 */
function keepsInsertedCounts<T>(base: readonly T[], inner: readonly T[], outer: readonly T[]): boolean {
  const b = counts(base);
  const o = counts(outer);
  for (const [x, n] of counts(inner)) if ((o.get(x) ?? 0) < n - (b.get(x) ?? 0)) return false;
  return true;
}

/**
 * True when every edit `inner` made to `base` is also in `outer`, and `outer`'s
 * further edits only add to it: `inner` lies on a shortest edit path from
 * `base` to `outer` (d(base, inner) + d(inner, outer) = d(base, outer)), and
 * - `inner` changed something (otherwise there is nothing to contain);
 * - `outer` puts nothing where `inner` purely deleted (that is a modify/delete
 *   conflict: a deletion is "contained" in any rewrite, which proves nothing);
 * - `outer` never drops elements of `inner` without putting something in their
 *   place (a silent deletion next to the other side's edit is the case git
 *   refuses to guess about; people often keep the line).
 * False, never a guess, when the sequences are too different to diff cheaply.
 */
export function editContains<T>(base: readonly T[], inner: readonly T[], outer: readonly T[]): boolean {
  if (!keepsInsertedCounts(base, inner, outer)) return false;
  const toInner = diffRegions(base, inner);
  const direct = editDistance(base, outer);
  if (toInner === null || direct === null || toInner.length === 0) return false;
  // On the path the remaining step costs exactly the difference; a longer step is not worth computing.
  const budget = direct - size(toInner);
  if (budget <= 0) return false;
  const step = diffRegions(inner, outer, budget);
  if (step === null || size(step) !== budget) return false;
  // Gaps of `inner` (gap g sits before inner[g]) where it deleted base elements and wrote nothing.
  const deletedAt = new Set(toInner.filter((r) => r.aLength > 0 && r.bLength === 0).map((r) => r.bStart));
  for (const r of step) {
    if (r.bLength === 0) return false;
    // The inserted run touches the gaps at and around the stretch of `inner` it replaces.
    for (let g = r.aStart; g <= r.aStart + r.aLength; g++) if (deletedAt.has(g)) return false;
  }
  return true;
}
