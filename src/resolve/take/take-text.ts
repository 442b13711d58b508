import { combinedText } from '../learnt/combined.js';
import { joinSides } from '../policy/path-policy.js';
import type { ConflictedFile, ConflictHunk } from '../types.js';
import type { TakeChoice, TakeOrder } from './take-command.js';

/** The whole versions of the file (the index stages), to tell whether a side ends without a line break. */
export interface SideTexts {
  base: string | null;
  ours: string | null;
  theirs: string | null;
}

/** The text a choice puts in place of one hunk; null when it has no such text (`base` of a hunk without one). */
export function takeText(hunk: ConflictHunk, choice: TakeChoice, order: TakeOrder = 'ours-first'): string | null {
  switch (choice) {
    case 'ours':
      return hunk.ours;
    case 'theirs':
      return hunk.theirs;
    case 'base':
      return hunk.base;
    case 'both':
      return order === 'ours-first' ? joinSides(hunk.ours, hunk.theirs) : joinSides(hunk.theirs, hunk.ours);
    case 'combined':
      return combinedText(hunk);
  }
}

/** The side whose last line ends the file when the hunk is the file's last segment. */
function lastSide(choice: TakeChoice, order: TakeOrder): 'ours' | 'theirs' | 'base' {
  // A combination ends as both sides do where they agree, else with upstream's lines.
  if (choice === 'combined') return 'theirs';
  if (choice !== 'both') return choice;
  return order === 'ours-first' ? 'theirs' : 'ours';
}

/**
 * The file with the chosen hunks replaced, every other byte as it was. Git ends a side that
 * has no final line break with one, so its marker starts a line: when the hunk ends the file
 * and the side taken last ended without one, so does the result.
 */
export function replaceHunks(
  file: ConflictedFile,
  numbers: ReadonlyMap<number, number>,
  chosen: ReadonlySet<number>,
  choice: TakeChoice,
  order: TakeOrder,
  sides: SideTexts,
): string {
  const last = file.segments[file.segments.length - 1];
  return file.segments
    .map((s) => {
      if (s.kind === 'text') return s.text;
      const number = numbers.get(s.hunk.index) ?? s.hunk.index;
      if (!chosen.has(number)) return s.hunk.raw;
      let text = takeText(s.hunk, choice, order) ?? s.hunk.raw;
      const whole = sides[lastSide(choice, order)];
      if (last === s && whole !== null && whole !== '' && !/\n$/.test(whole)) text = text.replace(/\r?\n$/, '');
      return text;
    })
    .join('');
}
