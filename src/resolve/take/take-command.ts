/** What `splintercat take` writes in place of a conflict block. */
export type TakeChoice = 'ours' | 'theirs' | 'both' | 'base';
export const takeChoices: readonly TakeChoice[] = ['ours', 'theirs', 'both', 'base'];

/** The order of `both`. */
export type TakeOrder = 'ours-first' | 'theirs-first';

/**
 * A word for the shell, in POSIX single quotes unless it is plain (letters, digits and
 * `@%+=:,./-_`). Every printed `splintercat take` command quotes through here, and only here.
 */
export function posixQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The exact `splintercat take` command for a choice, a file and one of its hunks (by number). */
export function takeCommand(choice: TakeChoice, path?: string, hunk?: number, order?: TakeOrder): string {
  const words = ['splintercat', 'take', choice];
  if (choice === 'both' && order === 'theirs-first') words.push('--order', 'theirs-first');
  if (path !== undefined) words.push(posixQuote(path));
  if (path !== undefined && hunk !== undefined) words.push(String(hunk));
  return words.join(' ');
}

/** A person's choice as `eval` names it (`PersonChoice`), as a take command's choice and order. */
export function takeOfChoice(choice: string): { choice: TakeChoice; order?: TakeOrder } | null {
  switch (choice) {
    case 'ours':
    case 'theirs':
    case 'base':
      return { choice };
    case 'ours then theirs':
      return { choice: 'both', order: 'ours-first' };
    case 'theirs then ours':
      return { choice: 'both', order: 'theirs-first' };
    default:
      return null;
  }
}
