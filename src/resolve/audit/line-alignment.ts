import { diffRegions, type DiffRegion } from '../rules/myers-diff.js';

/** Beyond this many line edits the alignment falls back to matching lines by text (the diff's memory is its square). */
const MAX_LINE_EDITS = 2_000;

/** Lines of a text as the audit reads them: no trailing empty line for a final newline; none at all for no file. */
export function auditLines(text: string | null): string[] {
  if (text === null || text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** A line compared with blanks ignored at both ends and runs of blanks as one: a re-indented line is the same line. */
export function lineKey(line: string): string {
  return line.trim().replace(/\s+/g, ' ');
}

/** The differing regions of two line lists; the whole of both when they differ too much for the diff. */
export function lineRegions(a: readonly string[], b: readonly string[]): DiffRegion[] {
  const regions = diffRegions(a, b, MAX_LINE_EDITS);
  if (regions !== null) return regions;
  return [{ aStart: 0, aLength: a.length, bStart: 0, bLength: b.length }];
}

/** How two line lists align: the differing regions, and for each line of `a` its line in `b` or -1. */
export interface LineAlignment {
  regions: DiffRegion[];
  matched: Int32Array;
}

/**
 * The alignment of two line lists. Lines compare by `lineKey`, so a change of indentation alone
 * keeps a line.
 */
export function alignLines(a: readonly string[], b: readonly string[]): LineAlignment {
  const regions = lineRegions(a.map(lineKey), b.map(lineKey));
  const matched = new Int32Array(a.length).fill(-1);
  let ai = 0;
  let bi = 0;
  for (const region of [...regions, { aStart: a.length, aLength: 0, bStart: b.length, bLength: 0 }]) {
    while (ai < region.aStart) matched[ai++] = bi++;
    ai = region.aStart + region.aLength;
    bi = region.bStart + region.bLength;
  }
  return { regions, matched };
}
