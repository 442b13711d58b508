/**
 * Every secret value this process has come to know (the model's key however it was given, the
 * credentials of a URL, keys in the checkout's `.env`, variables named like keys). Redaction by
 * value happens where text leaves the process (terminal, journal, state, report, a model request,
 * a check's output), whatever produced the text: an error body a provider echoed, a log a check
 * printed. One set for the process, filled as the values become known: a value is a secret
 * wherever it turns up, so the places that write do not need to be told which.
 */
const known = new Set<string>();

/** Values shorter than this are flags or words, not keys: redacting them would garble text. */
const MIN_SECRET_LENGTH = 8;
const REDACTED = '[REDACTED]';

/** Add secret values (short or empty ones are ignored). */
export function registerSecrets(values: Iterable<string | undefined | null>): void {
  for (const value of values) {
    const v = value?.trim();
    if (v && v.length >= MIN_SECRET_LENGTH) known.add(v);
  }
}

/** The secret values known so far, longest first (a key that contains another is replaced whole). */
export function knownSecrets(): string[] {
  return [...known].sort((a, b) => b.length - a.length);
}

/** `text` with every known secret value replaced by `[REDACTED]`. */
export function redactKnown(text: string): string {
  if (known.size === 0) return text;
  let out = text;
  for (const secret of knownSecrets()) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}
