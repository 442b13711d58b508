import type { ConflictedFile, ConflictHunk, Segment } from '../types.js';
import type { SideTexts } from './take-text.js';

/**
 * The file with only the marker hunks git wrote left as hunks: one present as it is in the
 * base, ours and theirs (the index stages) is the file's own content, a fixture or a page about
 * conflicts, and `take` must neither rewrite it nor wait for it to be settled. Where a side is
 * absent (an add/add has no base) the sides present decide.
 */
export function gitMadeHunks(file: ConflictedFile, sides: SideTexts): ConflictedFile {
  const present = [sides.base, sides.ours, sides.theirs].filter((t): t is string => t !== null);
  const content = (h: ConflictHunk): boolean => present.length >= 2 && present.every((t) => t.includes(h.raw));
  if (!file.hunks.some(content)) return file;
  const segments: Segment[] = [];
  for (const s of file.segments) {
    const text = s.kind === 'text' ? s.text : content(s.hunk) ? s.hunk.raw : null;
    const last = segments[segments.length - 1];
    if (text === null) segments.push(s);
    else if (last?.kind === 'text') segments[segments.length - 1] = { kind: 'text', text: last.text + text };
    else segments.push({ kind: 'text', text });
  }
  return { ...file, segments, hunks: file.hunks.filter((h) => !content(h)) };
}
