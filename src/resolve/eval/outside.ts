import { normalizeWhitespace } from '../normalize.js';
import type { ConflictedFile } from '../types.js';

/**
 * True when the person's file cannot be had by replacing each hunk with some
 * text: they also edited lines git merged cleanly (outside the conflicts), so
 * no resolver of the hunks could match their file. Compared line by line
 * ignoring whitespace; the clean stretches must appear in order.
 */
export function editedOutside(file: ConflictedFile, resolved: string): boolean {
  const lines = (s: string): string[] =>
    normalizeWhitespace(s)
      .split('\n')
      .filter((l) => l !== '');
  const person = lines(resolved);
  let pos = 0;
  const segs = file.segments;
  for (const [i, seg] of segs.entries()) {
    if (seg.kind !== 'text') continue;
    const want = lines(seg.text);
    if (want.length === 0) continue;
    const first = i === 0;
    const last = i === segs.length - 1;
    const fits = (at: number): boolean => want.every((w, j) => person[at + j] === w);
    let at = -1;
    if (first) at = fits(0) ? 0 : -1;
    else if (last)
      at = person.length - want.length >= pos && fits(person.length - want.length) ? person.length - want.length : -1;
    else for (let k = pos; k + want.length <= person.length && at < 0; k++) if (fits(k)) at = k;
    if (at < 0) return true;
    pos = at + want.length;
  }
  return false;
}
