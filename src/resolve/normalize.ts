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
