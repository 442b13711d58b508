/**
 * The first `n` test names joined by `; `, with `; ...` when there are more: how every message and report
 * names failing tests. `show` renders one name (escaped for Markdown, in `<code>` for HTML).
 */
export function firstTests(tests: readonly string[], n = 3, show: (test: string) => string = (test) => test): string {
  return `${tests.slice(0, n).map(show).join('; ')}${tests.length > n ? '; ...' : ''}`;
}
