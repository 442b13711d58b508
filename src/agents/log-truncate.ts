const errorLine = /\b(error|failed|failure|fatal|undefined reference|assert(?:ion)?|panic|exception|timed? ?out)\b/i;

/**
 * A bounded view of a (possibly huge) check log for a model: the head (what was
 * being built), every line that looks like an error (with one line of context,
 * first ones first), and the tail (where failures usually are), each part
 * marked, at most `maxChars` in all.
 */
export function truncateLog(text: string, maxChars = 24_000): string {
  if (text.length <= maxChars) return text;
  const lines = text.split('\n');
  const headBudget = Math.floor(maxChars * 0.15);
  const tailBudget = Math.floor(maxChars * 0.45);
  const errBudget = maxChars - headBudget - tailBudget - 200;

  const head: string[] = [];
  let used = 0;
  let i = 0;
  for (; i < lines.length && used + (lines[i] as string).length + 1 <= headBudget; i++) {
    head.push(lines[i] as string);
    used += (lines[i] as string).length + 1;
  }
  const tail: string[] = [];
  used = 0;
  let j = lines.length - 1;
  for (; j >= i && used + (lines[j] as string).length + 1 <= tailBudget; j--) {
    tail.unshift(lines[j] as string);
    used += (lines[j] as string).length + 1;
  }
  const errs: string[] = [];
  used = 0;
  let last = -2;
  for (let k = i; k <= j && used < errBudget; k++) {
    if (!errorLine.test(lines[k] as string)) continue;
    for (const n of [k - 1, k, k + 1]) {
      if (n <= last || n < i || n > j) continue;
      const line = (lines[n] as string).slice(0, 500);
      if (used + line.length + 1 > errBudget) break;
      if (n > last + 1 && errs.length > 0) errs.push('  ...');
      errs.push(line);
      used += line.length + 1;
      last = n;
    }
  }
  const omitted = j - i + 1;
  return [
    ...head,
    `[... ${omitted} lines omitted; lines that look like errors follow ...]`,
    ...errs,
    `[... end of error lines; the last ${tail.length} lines follow ...]`,
    ...tail,
  ].join('\n');
}
