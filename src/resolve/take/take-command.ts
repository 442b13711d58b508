import { shellWord } from '../../util/safe-print.js';

/**
 * What `splintercat take` writes in place of a conflict hunk; `combined` is both sides' lines merged
 * line by line (`combinedText`), what a suggestion offers where the maintainer used to combine them.
 */
export type TakeChoice = 'ours' | 'theirs' | 'both' | 'base' | 'combined';
export const takeChoices: readonly TakeChoice[] = ['ours', 'theirs', 'both', 'base', 'combined'];

/** The order of `both`. */
export type TakeOrder = 'ours-first' | 'theirs-first';

/**
 * The exact `splintercat take` command for a choice, a file and one of its hunks (by number); `choice`
 * may list the alternatives of one hunk (`ours|theirs|both`), shown as one command of several choices.
 */
export function takeCommand(choice: string, path?: string, hunk?: number, order?: TakeOrder): string {
  const words = ['splintercat', 'take', choice];
  if (choice === 'both' && order === 'theirs-first') words.push('--order', 'theirs-first');
  // shellWord: a name with a newline would otherwise print raw inside the quotes and start a line of its own.
  if (path !== undefined) words.push(shellWord(path));
  if (path !== undefined && hunk !== undefined) words.push(String(hunk));
  return words.join(' ');
}

/** The command that writes the model's K-th candidate resolution of a file and stages it. */
export function takeCandidateCommand(k: number, path: string): string {
  return `splintercat take candidate ${k} ${shellWord(path)}`;
}

/** A person's choice as `eval` names it (`PersonChoice`), as a take command's choice and order. */
export function takeOfChoice(choice: string): { choice: TakeChoice; order?: TakeOrder } | null {
  switch (choice) {
    case 'ours':
    case 'theirs':
    case 'base':
    case 'combined':
      return { choice };
    case 'ours then theirs':
      return { choice: 'both', order: 'ours-first' };
    case 'theirs then ours':
      return { choice: 'both', order: 'theirs-first' };
    default:
      return null;
  }
}

/** A take's choice and order as `eval` names a person's choice (`PersonChoice`): the inverse of `takeOfChoice`. */
export function choiceOfTake(choice: TakeChoice, order: TakeOrder = 'ours-first'): string {
  if (choice !== 'both') return choice;
  return order === 'ours-first' ? 'ours then theirs' : 'theirs then ours';
}
