/** The first `n` test names joined by `; `, with `; ...` when there are more: how messages name failing tests. */
export function firstTests(tests: readonly string[], n = 3): string {
  return `${tests.slice(0, n).join('; ')}${tests.length > n ? '; ...' : ''}`;
}
