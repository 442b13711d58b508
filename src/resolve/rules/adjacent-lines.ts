import { splitLinesKeep } from '../parse/lines.js';
import { diffRegions, type DiffRegion } from './myers-diff.js';
import type { ResolutionRule } from './rule.js';

interface Change {
  start: number;
  end: number;
  lines: string[];
}

const changes = (regions: readonly DiffRegion[], side: readonly string[]): Change[] =>
  regions.map((r) => ({
    start: r.aStart,
    end: r.aStart + r.aLength,
    lines: side.slice(r.bStart, r.bStart + r.bLength),
  }));

const same = (a: Change, b: Change): boolean =>
  a.start === b.start && a.end === b.end && a.lines.join('') === b.lines.join('');

/**
 * Whether two changes of different sides clash: they replace a common base
 * line, or one only inserts at a point touching the other (the order of the
 * two would be a guess). Changes of neighbouring lines do not clash.
 */
function clash(a: Change, b: Change): boolean {
  if (same(a, b)) return false;
  if (a.start < b.end && b.start < a.end) return true;
  const inserts = (x: Change, y: Change): boolean => x.start === x.end && x.start >= y.start && x.start <= y.end;
  return inserts(a, b) || inserts(b, a);
}

/**
 * Three-way merge of the hunk by lines that accepts edits of neighbouring
 * lines: git (and remerge-lines) treat two changes that touch as a conflict;
 * here each side's change of its own lines is kept when no base line was
 * changed by both, and an insertion touching the other side's change still
 * conflicts. Off by default: touching edits are often related (a format string
 * and its arguments, a version and its changelog line), and on the corpus
 * (400 hunks) it resolved 47 alone: 30 as the person did, 15 wrong, 2
 * unaligned, 0 sides dropped (people often kept only one side's line).
 */
export const adjacentLines: ResolutionRule = {
  name: 'adjacent-lines',
  description: 'edits of neighbouring lines merged line by line (git refuses edits that touch)',
  enabledByDefault: false,
  cost: 'superlinear',
  resolve: ({ base, ours, theirs }) => {
    if (base === null) return null;
    const b = splitLinesKeep(base);
    const o = splitLinesKeep(ours);
    const t = splitLinesKeep(theirs);
    const ro = diffRegions(b, o);
    const rt = diffRegions(b, t);
    if (ro === null || rt === null) return null;
    const co = changes(ro, o);
    const ct = changes(rt, t);
    if (co.some((x) => ct.some((y) => clash(x, y)))) return null;
    const all = [...co, ...ct.filter((y) => !co.some((x) => same(x, y)))].sort(
      (x, y) => x.start - y.start || x.end - y.end,
    );
    const out: string[] = [];
    let at = 0;
    for (const c of all) {
      out.push(...b.slice(at, c.start), ...c.lines);
      at = c.end;
    }
    out.push(...b.slice(at));
    return out.join('');
  },
};
