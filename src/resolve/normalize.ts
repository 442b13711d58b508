import { indentationIsLayout } from './rules/indentation.js';

/**
 * Whitespace normalisation used to compare resolutions: line endings unified,
 * each line trimmed with inner runs of blanks collapsed, blank lines dropped.
 */
export function normalizeWhitespace(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/[ \t\f\v]+/g, ' '))
    .filter((line) => line !== '')
    .join('\n');
}

/** True when the texts differ at most in whitespace (as `normalizeWhitespace` sees it). */
export function equalIgnoringWhitespace(a: string, b: string): boolean {
  return a === b || normalizeWhitespace(a) === normalizeWhitespace(b);
}

/**
 * The whitespace normalisation the evaluation compares with: as
 * `normalizeWhitespace`, except that where indentation can carry meaning (any
 * file type not known to be free-form, see `indentationIsLayout`) each line
 * keeps its leading whitespace, so a line moved into or out of a Python block
 * is a difference.
 */
export function normalizeForPath(text: string, path: string): string {
  if (indentationIsLayout(path)) return normalizeWhitespace(text);
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) => (/^[ \t]*/.exec(line)?.[0] ?? '') + line.trim().replace(/[ \t\f\v]+/g, ' '))
    .join('\n');
}
