import { hunkKey, parseConflictText, takenChoices, takeOfChoice } from '../../resolve/index.js';
import { takeText } from '../../resolve/take/take-text.js';
import type { ConflictHunk } from '../../resolve/types.js';

/** What `splintercat take` kept for each hunk of a file as presented, in hunk order (undefined: no take settled it). */
export interface PresentedTakes {
  choices: Array<string | undefined>;
  /** The text the take wrote for hunk `i` of the presented file, or null where no take settled it. */
  text: (hunk: ConflictHunk, i: number) => string | null;
}

/**
 * The takes of the hunks of a presented file (`presented`: its text as saved at the hand-off),
 * matched by each hunk's identity (its two sides), never by the lines around it: what a take
 * kept stays the truth when the person edits near the hunk or another take moves it.
 */
export async function presentedTakes(gitDir: string, path: string, presented: string): Promise<PresentedTakes> {
  const taken = await takenChoices(gitDir, path);
  const hunks = parseConflictText(presented, { path }).hunks;
  const choices = hunks.map((h) => {
    const at = taken.findIndex((t) => t.key === hunkKey(h));
    return at < 0 ? undefined : taken.splice(at, 1)[0]?.choice;
  });
  return {
    choices,
    text: (hunk, i) => {
      const take = choices[i] === undefined ? null : takeOfChoice(choices[i] as string);
      return take === null ? null : takeText(hunk, take.choice, take.order);
    },
  };
}
