import type { DiffRegion } from '../rules/myers-diff.js';
import { alignLines, lineKey, lineRegions, type LineAlignment } from './line-alignment.js';
import { lostTokens, tokenSet } from './lost-tokens.js';
import type { AuditLine, HunkAudit, SideAudit } from './types.js';

/** At most this many lines of each kind are kept per hunk, and this many hunks per side: the counts stay exact. */
const MAX_LISTED_LINES = 20;
const MAX_LISTED_HUNKS = 50;
/** A kept line's text is cut to this many characters (a minified line would otherwise fill the record). */
const MAX_LINE_CHARS = 240;

/** Where a line is, for a move: the path and the 1-based line. */
interface LinePlace {
  path: string;
  line: number;
}

/** Lines by `lineKey`, each with the places it can be found at; taken (shifted) as they are matched. */
export type LinePool = Map<string, LinePlace[]>;

/** The versions of one side's file, as lines (`[]` for no file). */
export interface SideLines {
  path: string;
  base: readonly string[];
  side: readonly string[];
  resolved: readonly string[];
  sideDeleted: boolean;
  resolvedDeleted: boolean;
}

function cut(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
}

function take(pool: LinePool, key: string): LinePlace | undefined {
  const places = pool.get(key);
  const place = places?.shift();
  if (places?.length === 0) pool.delete(key);
  return place;
}

/** The resolved lines the alignment with the side leaves unmatched: the resolution's own lines. */
function unmatchedResolved(lines: SideLines, alignment: LineAlignment): LinePool {
  const used = new Uint8Array(lines.resolved.length);
  for (const at of alignment.matched) if (at >= 0) used[at] = 1;
  const pool: LinePool = new Map();
  lines.resolved.forEach((line, at) => {
    const key = lineKey(line);
    if (used[at] === 1 || key === '') return;
    const places = pool.get(key) ?? [];
    places.push({ path: lines.path, line: at + 1 });
    pool.set(key, places);
  });
  return pool;
}

function emptyHunk(region: DiffRegion): HunkAudit {
  return {
    baseLine: region.aStart + 1,
    sideLine: region.bStart + 1,
    added: region.bLength,
    removed: region.aLength,
    dropped: [],
    restored: [],
    rewritten: [],
    moved: [],
  };
}

interface Counts {
  dropped: number;
  restored: number;
  rewritten: number;
  moved: number;
}

function listed<T>(list: T[], item: T): void {
  if (list.length < MAX_LISTED_LINES) list.push(item);
}

/** The side→resolved region holding side line `at`, if that line is in one. */
function regionOf(regions: readonly DiffRegion[], at: number): DiffRegion | undefined {
  return regions.find((r) => at >= r.aStart && at < r.aStart + r.aLength);
}

/**
 * Sorts the side's added lines that the resolution does not have where the side has them: kept
 * elsewhere (in `pool`, the resolution's own lines, or `elsewhere`, other files of the cell),
 * rewritten (a line of the resolution in their place keeps some of their tokens), or dropped.
 */
function auditAdded(
  lines: SideLines,
  hunks: Array<{ region: DiffRegion; audit: HunkAudit }>,
  alignment: LineAlignment,
  pools: { pool: LinePool; elsewhere: LinePool },
  counts: Counts,
): void {
  for (const { region, audit } of hunks) {
    let baseTokens: Set<string> | null = null;
    for (let at = region.bStart; at < region.bStart + region.bLength; at++) {
      const text = lines.side[at] as string;
      const key = lineKey(text);
      if (key === '' || (alignment.matched[at] as number) >= 0) continue;
      const entry: AuditLine = { line: at + 1, text: cut(text) };
      const place = take(pools.pool, key) ?? take(pools.elsewhere, key);
      if (place !== undefined) {
        counts.moved++;
        listed(audit.moved, { ...entry, to: place });
        continue;
      }
      const replaced = regionOf(alignment.regions, at);
      const candidates = replaced ? lines.resolved.slice(replaced.bStart, replaced.bStart + replaced.bLength) : [];
      baseTokens ??= tokenSet(lines.base.slice(region.aStart, region.aStart + region.aLength));
      const rewrite = lostTokens(text, candidates, baseTokens);
      if (rewrite?.lost.length === 0) continue;
      if (rewrite === null) {
        counts.dropped++;
        listed(audit.dropped, entry);
      } else {
        counts.rewritten++;
        listed(audit.rewritten, { ...entry, lost: rewrite.lost, into: cut(rewrite.into) });
      }
    }
  }
}

/** The side's removed lines that the resolution has again, among its own lines (`pool`). */
function auditRemoved(
  lines: SideLines,
  hunks: Array<{ region: DiffRegion; audit: HunkAudit }>,
  pool: LinePool,
  counts: Counts,
): void {
  for (const { region, audit } of hunks) {
    for (let at = region.aStart; at < region.aStart + region.aLength; at++) {
      const text = lines.base[at] as string;
      const key = lineKey(text);
      if (key === '' || take(pool, key) === undefined) continue;
      counts.restored++;
      listed(audit.restored, { line: at + 1, text: cut(text) });
    }
  }
}

/**
 * What the resolution kept of one side's change: the side's diff against the base, hunk by hunk,
 * against the resolved lines. Moves are matched before restores, so a line the side moved and the
 * resolution kept at the base's place counts as kept, not as dropped and restored.
 */
export function auditSide(lines: SideLines, elsewhere: LinePool): SideAudit {
  const sideRegions = lineRegions(lines.base.map(lineKey), lines.side.map(lineKey));
  const hunks = sideRegions.map((region) => ({ region, audit: emptyHunk(region) }));
  const alignment = alignLines(lines.side, lines.resolved);
  const pool = unmatchedResolved(lines, alignment);
  const counts: Counts = { dropped: 0, restored: 0, rewritten: 0, moved: 0 };
  auditAdded(lines, hunks, alignment, { pool, elsewhere }, counts);
  auditRemoved(lines, hunks, pool, counts);
  const touched = hunks
    .map((h) => h.audit)
    .filter((h) => h.dropped.length + h.restored.length + h.rewritten.length + h.moved.length > 0);
  return {
    changed: sideRegions.length > 0 || lines.sideDeleted,
    deletedFile: lines.sideDeleted,
    resolvedDeleted: lines.resolvedDeleted,
    hunks: sideRegions.length,
    ...counts,
    losses: touched.slice(0, MAX_LISTED_HUNKS),
    truncated: touched.length > MAX_LISTED_HUNKS,
  };
}
