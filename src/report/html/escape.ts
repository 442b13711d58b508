/**
 * Escaping for the HTML report. Everything that comes from the repository or a model (paths,
 * commit messages, hunks, diffs, reasoning, tool output, log excerpts) is untrusted: it goes
 * through `esc` into text and attributes, and through `jsonForScript` into the page's data.
 */
const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or attribute value (double- or single-quoted) safe. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => entities[c] as string);
}

/**
 * JSON for a `<script type="application/json">` element: `<`, `>` and `&` as unicode escapes,
 * so no `</script>` or `<!--` can end or change the element, and U+2028/9 escaped for old parsers.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** An id fragment from a conflict id or a path (letters, digits, `-`, `_` only). */
export function idFrom(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}
