import type { ConflictedFile, ConflictHunk } from '../types.js';
import { splitLinesKeep } from '../parse/lines.js';

/** How many context lines an anchor may grow to before the hunk is declared unalignable. */
const MAX_ANCHOR_LINES = 40;

/**
 * Find the part of the human's whole-file resolution that replaced one hunk:
 * the smallest run of clean lines just before the hunk that occurs once in the
 * resolved file marks the start, the same after the hunk marks the end. Null
 * when either anchor is missing or ambiguous (the human rewrote the context).
 */
export function alignHunk(file: ConflictedFile, hunk: ConflictHunk, resolved: string): string | null {
  const at = file.segments.findIndex((s) => s.kind === 'conflict' && s.hunk.index === hunk.index);
  const prev = file.segments[at - 1];
  const next = file.segments[at + 1];

  let start: number;
  if (at === 0) start = 0;
  else if (prev?.kind !== 'text') return null;
  else {
    const found = uniqueAnchor(splitLinesKeep(prev.text), resolved, 'suffix', 0);
    if (found === null) return null;
    start = found.index + found.anchor.length;
  }

  let end: number;
  if (at === file.segments.length - 1) end = resolved.length;
  else if (next?.kind !== 'text') return null;
  else {
    const found = uniqueAnchor(splitLinesKeep(next.text), resolved, 'prefix', start);
    if (found === null) return null;
    end = found.index;
  }
  return end >= start ? resolved.slice(start, end) : null;
}

function uniqueAnchor(
  lines: string[],
  haystack: string,
  take: 'prefix' | 'suffix',
  from: number,
): { anchor: string; index: number } | null {
  for (let k = 1; k <= Math.min(lines.length, MAX_ANCHOR_LINES); k++) {
    const part = take === 'prefix' ? lines.slice(0, k) : lines.slice(lines.length - k);
    const anchor = part.join('');
    if (anchor.trim() === '') continue;
    const hits = lineStartOccurrences(haystack, anchor, from, 2);
    if (hits.length === 1) return { anchor, index: hits[0] as number };
    if (hits.length === 0) return null;
  }
  return null;
}

function lineStartOccurrences(haystack: string, needle: string, from: number, limit: number): number[] {
  const out: number[] = [];
  let i = haystack.indexOf(needle, from);
  while (i !== -1 && out.length < limit) {
    if (i === 0 || haystack[i - 1] === '\n') out.push(i);
    i = haystack.indexOf(needle, i + 1);
  }
  return out;
}
