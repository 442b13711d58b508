import { normalizeForPath } from '../normalize.js';
import { splitLinesKeep } from '../parse/lines.js';
import type { ConflictedFile, ConflictHunk } from '../types.js';

/** How many context lines an anchor may grow to before the hunk is declared unalignable. */
const MAX_ANCHOR_LINES = 40;

/** Where the person's resolution of one hunk sits in their file. */
export interface PersonRegion {
  /** The person's text from the end of the start anchor to the start of the end anchor. */
  text: string;
  /** Blank lines of the merged file between the start anchor and the hunk (part of the region). */
  before: string;
  /** Blank lines of the merged file between the hunk and the end anchor. */
  after: string;
  /** Where `text` starts and ends in the person's file. */
  start: number;
  end: number;
}

/** Lines compare without trailing blanks (indentation kept: it tells `}` lines apart). */
const key = (line: string): string => line.replace(/\s+$/, '');
const looseKey = (line: string): string => line.trim().replace(/\s+/g, ' ');

/** A text's lines with their whitespace-normalised keys, blank lines marked by an empty key. */
function keyed(text: string): { lines: string[]; keys: string[] } {
  const lines = splitLinesKeep(text);
  return { lines, keys: lines.map(key) };
}

/**
 * Find the part of the person's whole-file resolution that replaced one hunk.
 * The anchors are the nearest non-blank context lines before and after the
 * hunk (trailing blanks ignored), grown until they occur exactly once. Blank lines between an anchor and the
 * hunk belong to the region, so a blank line the person added or removed next
 * to the hunk does not make it unalignable. Null when an anchor is missing or
 * ambiguous (the person rewrote the context) or the hunk touches another hunk.
 */
export function alignHunk(file: ConflictedFile, hunk: ConflictHunk, resolved: string): PersonRegion | null {
  const at = file.segments.findIndex((s) => s.kind === 'conflict' && s.hunk.index === hunk.index);
  const person = keyed(resolved);
  const offsets = [0];
  for (const l of person.lines) offsets.push((offsets[offsets.length - 1] as number) + l.length);
  // Non-blank lines of the person's file: their keys and their line numbers.
  const nbLines: number[] = [];
  for (const [i, k] of person.keys.entries()) if (k !== '') nbLines.push(i);
  const nbKeys = nbLines.map((i) => person.keys[i] as string);

  const side = (
    segmentIndex: number,
    which: 'before' | 'after',
  ): { anchor: string[]; blank: string } | 'edge' | null => {
    const seg = file.segments[segmentIndex];
    const atEdge = which === 'before' ? segmentIndex === 0 : segmentIndex === file.segments.length - 1;
    if (seg === undefined) return 'edge';
    if (seg.kind !== 'text') return null;
    const { lines, keys } = keyed(seg.text);
    const nonBlank = keys.flatMap((k, i) => (k === '' ? [] : [i]));
    if (nonBlank.length === 0) return atEdge ? { anchor: [], blank: seg.text } : null;
    const edge = which === 'before' ? (nonBlank[nonBlank.length - 1] as number) : (nonBlank[0] as number);
    const blank = which === 'before' ? lines.slice(edge + 1).join('') : lines.slice(0, edge).join('');
    const anchor = nonBlank.map((i) => keys[i] as string);
    return { anchor: which === 'before' ? anchor.reverse() : anchor, blank };
  };

  /** Index into nbKeys where `run` (nearest line first) occurs once, searching nb entries from `from`. */
  const unique = (nearestFirst: string[], which: 'before' | 'after', from: number): number | null => {
    for (let k = 1; k <= Math.min(nearestFirst.length, MAX_ANCHOR_LINES); k++) {
      const run = nearestFirst.slice(0, k);
      if (which === 'before') run.reverse();
      const hits: number[] = [];
      for (let i = from; i + k <= nbKeys.length && hits.length < 2; i++) {
        if (run.every((r, j) => nbKeys[i + j] === r)) hits.push(i);
      }
      if (hits.length === 0) return null;
      if (hits.length === 1) return which === 'before' ? (hits[0] as number) + k - 1 : (hits[0] as number);
    }
    return null;
  };

  const pre = side(at - 1, 'before');
  if (pre === null) return null;
  let start = 0;
  let before = '';
  let firstNb = 0;
  if (pre !== 'edge') {
    before = pre.blank;
    if (pre.anchor.length > 0) {
      const last = unique(pre.anchor, 'before', 0);
      if (last === null) return null;
      start = offsets[(nbLines[last] as number) + 1] as number;
      firstNb = last + 1;
    }
  }

  const post = side(at + 1, 'after');
  if (post === null) return null;
  let end = resolved.length;
  let after = '';
  if (post !== 'edge') {
    after = post.blank;
    if (post.anchor.length > 0) {
      const first = unique(post.anchor, 'after', firstNb);
      if (first === null) return null;
      end = offsets[nbLines[first] as number] as number;
    }
  }
  return end >= start ? { text: resolved.slice(start, end), before, after, start, end } : null;
}

/**
 * Whether `text`, put where the person's region is (with the blank lines
 * between the anchors and the hunk), reads as the person's text after
 * whitespace normalisation for the path.
 */
export function matchesRegion(region: PersonRegion, text: string, path: string): boolean {
  return normalizeForPath(region.before + text + region.after, path) === normalizeForPath(region.text, path);
}

/**
 * True when the text's non-blank lines (whitespace-normalised) occur as a
 * consecutive run in `file`, or the text has none: the resolution could be in
 * the file somewhere. False proves the person's file does not contain it.
 */
export function fileContainsLines(file: string, text: string): boolean {
  const want = splitLinesKeep(text)
    .map(looseKey)
    .filter((k) => k !== '');
  if (want.length === 0) return true;
  const have = splitLinesKeep(file)
    .map(looseKey)
    .filter((k) => k !== '');
  for (let i = 0; i + want.length <= have.length; i++) if (want.every((w, j) => have[i + j] === w)) return true;
  return false;
}
