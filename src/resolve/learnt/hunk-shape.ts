import type { HunkSides } from '../rules/rule.js';

/**
 * What a conflict looks like, so that a maintainer's past choices on conflicts of the same shape
 * can speak for this one:
 * - `added`: no base lines (both sides added lines at the same place);
 * - `deleted`: one side deleted every line the other changed (`lead` = the side that kept lines);
 * - `rewrote`: one side departs from the base more than the other (`lead` = that side), and the
 *   other side's change is only deletions or lines the lead also has;
 * - `rewrote, other added`: the same, and the other side also added lines of its own;
 * - `same lines`: both sides replaced the base lines about as much (e.g. one line each).
 */
export type ShapeKind = 'added' | 'deleted' | 'rewrote' | 'rewrote, other added' | 'same lines';

export interface HunkShape {
  kind: ShapeKind;
  /** The side a choice is read relative to, for the shapes that have one. */
  lead: 'ours' | 'theirs' | null;
}

/** How much more one side must depart from the base to lead. */
const LEAD_MARGIN = 0.2;

function meaningful(text: string | null): string[] {
  return (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export function shapeOf(sides: HunkSides): HunkShape {
  const base = new Set(meaningful(sides.base));
  const ours = meaningful(sides.ours);
  const theirs = meaningful(sides.theirs);
  if (base.size === 0) return { kind: 'added', lead: null };
  if (ours.length === 0) return { kind: 'deleted', lead: 'theirs' };
  if (theirs.length === 0) return { kind: 'deleted', lead: 'ours' };
  const departs = (lines: string[]): number => 1 - lines.filter((l) => base.has(l)).length / lines.length;
  const d = { ours: departs(ours), theirs: departs(theirs) };
  if (Math.abs(d.ours - d.theirs) < LEAD_MARGIN) return { kind: 'same lines', lead: null };
  const lead = d.ours > d.theirs ? 'ours' : 'theirs';
  const leadLines = new Set(lead === 'ours' ? ours : theirs);
  const other = lead === 'ours' ? theirs : ours;
  const ownAdditions = other.some((l) => !base.has(l) && !leadLines.has(l));
  return { kind: ownAdditions ? 'rewrote, other added' : 'rewrote', lead };
}

/** The choices a suggestion can make (what a person keeps of the two sides). */
export type SideChoice = 'ours' | 'theirs' | 'ours then theirs' | 'theirs then ours';
export const sideChoices: readonly SideChoice[] = ['ours', 'theirs', 'ours then theirs', 'theirs then ours'];

/**
 * A choice read relative to the shape's lead (`lead`, `other`, `lead then other`, ...), so the
 * same habit counts whichever side led; other choices (`other text`, `base`) stay as they are.
 */
export function relativeChoice(choice: string, lead: HunkShape['lead']): string {
  if (lead === null) return choice;
  return choice.replace(/\b(ours|theirs)\b/g, (side) => (side === lead ? 'lead' : 'other'));
}

/** A relative choice back in sides, for a hunk whose shape has `lead`. */
export function absoluteChoice(relative: string, lead: HunkShape['lead']): string {
  if (lead === null) return relative;
  const other = lead === 'ours' ? 'theirs' : 'ours';
  return relative.replace(/\b(lead|other)\b/g, (word) => (word === 'lead' ? lead : other));
}

/** FNV-1a of each meaningful line (longer than 3 characters) of the three sides: what "similar" compares. */
export function lineHashes(sides: HunkSides, max = 400): number[] {
  const all = new Set([...meaningful(sides.base), ...meaningful(sides.ours), ...meaningful(sides.theirs)]);
  const out: number[] = [];
  for (const line of all) {
    if (line.length <= 3) continue;
    let h = 0x811c9dc5;
    for (let i = 0; i < line.length; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193) >>> 0;
    out.push(h);
    if (out.length >= max) break;
  }
  return out.sort((a, b) => a - b);
}

/** Jaccard similarity of two sorted hash lists. */
export function similarity(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  let j = 0;
  let both = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      both++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  const union = a.length + b.length - both;
  return union === 0 ? 0 : both / union;
}
