/** One differing stretch: `a[aStart, aStart + aLength)` became `b[bStart, bStart + bLength)`. */
export interface DiffRegion {
  aStart: number;
  aLength: number;
  bStart: number;
  bLength: number;
}

/**
 * Shortest edit script between two sequences (Myers' O(ND) algorithm), as the
 * differing regions in order; null when more than `maxEdits` insertions plus
 * deletions would be needed. Fast when the sequences are similar, which is the
 * case the rules care about (node-diff3's LCS slows down on long token runs
 * with many repeats, such as punctuation).
 */
export function diffRegions<T>(a: readonly T[], b: readonly T[], maxEdits = 2_000): DiffRegion[] | null {
  // The common prefix and suffix cost nothing; diff only the middle.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middle = myers(a.slice(head, a.length - tail), b.slice(head, b.length - tail), maxEdits);
  return middle === null ? null : middle.map((r) => ({ ...r, aStart: r.aStart + head, bStart: r.bStart + head }));
}

function myers<T>(a: readonly T[], b: readonly T[], maxEdits: number): DiffRegion[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    // Only diagonals -d..d can be read back at step d.
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))
          ? (v[offset + k + 1] as number)
          : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return null;

  // Walk the trace back from (n, m), collecting the matched diagonals.
  const matches: Array<[number, number]> = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d] as Int32Array;
    const at = (diagonal: number): number => prev[diagonal + d + 1] as number;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > (down ? prevX : prevX + 1) && y > (down ? prevY + 1 : prevY)) matches.push([--x, --y]);
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) matches.push([--x, --y]);
  matches.reverse();

  const regions: DiffRegion[] = [];
  let ai = 0;
  let bi = 0;
  for (const [mx, my] of [...matches, [n, m] as [number, number]]) {
    if (mx > ai || my > bi) regions.push({ aStart: ai, aLength: mx - ai, bStart: bi, bLength: my - bi });
    ai = mx + 1;
    bi = my + 1;
  }
  return regions;
}
