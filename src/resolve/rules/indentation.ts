import { splitLinesKeep } from '../parse/lines.js';
import { profileForPath } from '../syntax/languages.js';

/** True when re-indenting lines of this path cannot change what the file means (`layoutIndentation` of its language). */
export function indentationIsLayout(path: string): boolean {
  return profileForPath(path)?.layoutIndentation === true;
}

/** The leading whitespace of each non-blank line. */
export function indentationOf(text: string): string[] {
  return splitLinesKeep(text)
    .filter((l) => l.trim() !== '')
    .map((l) => /^[ \t]*/.exec(l)?.[0] ?? '');
}
