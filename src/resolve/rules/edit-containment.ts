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
 *   refuses to guess about; people often keep the line);
 * - each run `inner` wrote stays contiguous in `outer`: `outer`'s further
 *   edits never land inside it. Containment as a mere subsequence is not
 *   containment: `"fast-glob": "^3.3.3"` is a subsequence of
 *   `"fast-glob": "^3.3.2", "other": "^1.3.0"` (its last `3` found in the
 *   other version), and taking that side was a downgrade.
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
  // Runs of `inner` that it wrote: [start, end) in `inner`'s positions.
  const written = toInner.filter((r) => r.bLength > 0).map((r) => [r.bStart, r.bStart + r.bLength] as const);
  for (const r of step) {
    if (r.bLength === 0) return false;
    // The inserted run touches the gaps at and around the stretch of `inner` it replaces.
    for (let g = r.aStart; g <= r.aStart + r.aLength; g++) if (deletedAt.has(g)) return false;
    // A step that starts or ends strictly inside a written run splits it.
    const end = r.aStart + r.aLength;
    const splits = (at: number, stop: number): boolean =>
      written.some(([s, e]) => (at > s && at < e) || (stop > s && stop < e));
    if (
      splits(r.aStart, end) &&
      (r.aLength > 0 || [slid(inner, outer, r, -1), slid(inner, outer, r, 1)].every((g) => splits(g, g)))
    )
      return false;
  }
  return true;
}

/**
 * Where a pure insertion lands once slid as far as the sequences allow, left
 * (-1) or right (1): inserting `x y` after `x y` is the same edit as inserting
 * it before them, and the diff's choice among such places must not decide
 * containment.
 */
function slid<T>(inner: readonly T[], outer: readonly T[], r: DiffRegion, dir: -1 | 1): number {
  const run = outer.slice(r.bStart, r.bStart + r.bLength);
  let gap = r.aStart;
  if (dir < 0) {
    while (gap > 0 && inner[gap - 1] === run[run.length - 1]) {
      run.unshift(run.pop() as T);
      gap--;
    }
  } else {
    while (gap < inner.length && inner[gap] === run[0]) {
      run.push(run.shift() as T);
      gap++;
    }
  }
  return gap;
}
