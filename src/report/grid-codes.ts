/**
 * The compact cell alphabet of a report's grid: one letter per cell, `a` + merge + 5 × edge,
 * where merge is git-imerge's merge state (0 unknown, 1 manual, 2 automatic, 3 blocked,
 * 4 unblocked) and edge says whether the cell is on the right (1), bottom (2) or both (3)
 * edges of a rectangle of the known frontier. Rows (j) are stored one after the other, each
 * len1 cells long, then run-length encoded as `<count><letter>` pairs: a 2,000 × 500 grid is a
 * few kilobytes. The HTML page's script decodes the same alphabet (html/client-script.ts).
 */
export const MERGE_UNKNOWN = 0;
export const MERGE_MANUAL = 1;
export const MERGE_AUTOMATIC = 2;
export const MERGE_BLOCKED = 3;
export const MERGE_UNBLOCKED = 4;

const RIGHT = 0x20;
const BOTTOM = 0x40;
const A = 'a'.charCodeAt(0);

/** The letter of a node of `diagramCodes` (src/imerge/diagram.ts). */
export function nodeLetter(node: number): string {
  const merge = node & 7;
  const edge = (node & RIGHT ? 1 : 0) + (node & BOTTOM ? 2 : 0);
  return String.fromCharCode(A + Math.min(merge, 4) + 5 * edge);
}

/** The letter of a cell known only by its merge state (no frontier information). */
export function mergeLetter(merge: number): string {
  return String.fromCharCode(A + merge);
}

export interface DecodedCell {
  merge: number;
  right: boolean;
  bottom: boolean;
}

/** The merge state and frontier edges a letter stands for. */
export function decodeLetter(letter: string): DecodedCell {
  const k = letter.charCodeAt(0) - A;
  const merge = k % 5;
  const edge = Math.floor(k / 5);
  return { merge, right: (edge & 1) !== 0, bottom: (edge & 2) !== 0 };
}

/** git-imerge's diagram character of a letter (as `diagram` prints it). */
export function diagramCharOf(letter: string): string {
  const { merge, right, bottom } = decodeLetter(letter);
  if (merge !== MERGE_MANUAL && merge !== MERGE_BLOCKED && merge !== MERGE_UNBLOCKED) {
    if (right && bottom) return '+';
    if (right) return '|';
    if (bottom) return '-';
  }
  return ['?', '*', '.', '#', '@'][merge] as string;
}

/** Run-length encode a string of letters: `aaab` → `3a1b`. */
export function encodeRuns(letters: string): string {
  let out = '';
  let i = 0;
  while (i < letters.length) {
    const ch = letters[i] as string;
    let j = i + 1;
    while (j < letters.length && letters[j] === ch) j++;
    out += `${j - i}${ch}`;
    i = j;
  }
  return out;
}

/** Inverse of `encodeRuns`. */
export function decodeRuns(runs: string): string {
  const parts: string[] = [];
  const re = /(\d+)([a-z])/g;
  for (let m = re.exec(runs); m !== null; m = re.exec(runs)) parts.push((m[2] as string).repeat(Number(m[1])));
  return parts.join('');
}
