import type { ConflictedFile, ConflictHunk } from '../types.js';
import { alignHunk, matchesRegion } from './align.js';

/**
 * What the person wrote in place of a hunk the ladder left. A rule can only
 * choose among texts it has, so this bounds what any rule could take, and
 * shows why the rest is a judgement: where the person took one side, the
 * other side's change was real too.
 */
export type PersonChoice =
  'ours' | 'theirs' | 'ours then theirs' | 'theirs then ours' | 'base' | 'other text' | 'unaligned';

export const PERSON_CHOICES: readonly PersonChoice[] = [
  'ours',
  'theirs',
  'ours then theirs',
  'theirs then ours',
  'base',
  'other text',
  'unaligned',
];

/** The person's text for the hunk, compared after whitespace normalisation with each text a rule could choose. */
export function personChoice(file: ConflictedFile, hunk: ConflictHunk, resolved: string): PersonChoice {
  const region = alignHunk(file, hunk, resolved);
  if (region === null) return 'unaligned';
  const same = (text: string): boolean => matchesRegion(region, text, file.path);
  if (same(hunk.ours)) return 'ours';
  if (same(hunk.theirs)) return 'theirs';
  if (same(hunk.ours + hunk.theirs)) return 'ours then theirs';
  if (same(hunk.theirs + hunk.ours)) return 'theirs then ours';
  if (hunk.base !== null && same(hunk.base)) return 'base';
  return 'other text';
}

/**
 * A file the ladder left, by what the person did with its open hunks: each
 * taken from one side (always the same side, or not), sides kept together,
 * or text neither side has.
 */
export function fileChoice(choices: readonly PersonChoice[], editedOutside: boolean): string {
  if (editedOutside) return 'edited outside the conflicts too';
  if (choices.includes('unaligned')) return 'some hunk unaligned';
  if (choices.some((c) => c === 'other text' || c === 'base')) return 'some hunk needs text of neither side';
  if (choices.every((c) => c === 'ours')) return 'every open hunk ours';
  if (choices.every((c) => c === 'theirs')) return 'every open hunk theirs';
  if (choices.every((c) => c === 'ours' || c === 'theirs')) return 'one side per hunk, not always the same';
  return 'both sides kept in some hunk';
}
