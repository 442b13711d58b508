import { knownSecrets } from '../util/secret-registry.js';

const SECRET_KEY = /key|token|secret|password|passwd|authorization|cookie/i;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
const INLINE_KEY = /\b(sk-[A-Za-z0-9_-]{12,}|sk-or-v1-[A-Za-z0-9]{16,}|sk-ant-[A-Za-z0-9_-]{16,})\b/g;
export const REDACTED = '[REDACTED]';

/**
 * A copy of `value` with secrets removed: values of keys that name a secret
 * (`*key*`, `*token*`, `authorization`, ...) at any depth, `Bearer ...` credentials
 * and provider-style keys inside strings, and every known secret value wherever it appears.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[] = []): T {
  // Longest first: a secret that contains another is replaced whole.
  const known = [...new Set([...secrets.filter((s) => s.length >= 6), ...knownSecrets()])].sort(
    (a, b) => b.length - a.length,
  );
  const text = (s: string): string => {
    let out = s.replace(BEARER, `$1 ${REDACTED}`).replace(INLINE_KEY, REDACTED);
    for (const secret of known) out = out.split(secret).join(REDACTED);
    return out;
  };
  const seen = new WeakSet<object>();
  const walk = (v: unknown, key?: string): unknown => {
    if (key !== undefined && SECRET_KEY.test(key) && v !== null && v !== undefined && v !== '' && typeof v !== 'object')
      return REDACTED;
    if (typeof v === 'string') return text(v);
    if (v instanceof Error)
      return { name: v.name, message: text(v.message), stack: v.stack ? text(v.stack) : undefined };
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[Circular]';
      seen.add(v);
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    }
    return v;
  };
  return walk(value) as T;
}

/** Secret values found in an environment: values of variables named like a key or token. */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, v]) => /KEY|TOKEN|SECRET|PASSWORD/i.test(name) && typeof v === 'string' && v.length >= 6)
    .map(([, v]) => v as string);
}

/**
 * Redacts known secret values from a byte stream whose chunks may split a secret anywhere:
 * bytes that could be the start of a secret are held back until the next chunk (or `end`)
 * shows whether they are. Works on bytes (latin1 strings map one-to-one), so output that is
 * not UTF-8 passes through unchanged apart from the secrets.
 */
export class StreamRedactor {
  private readonly needles: string[];
  private readonly replacement = Buffer.from(REDACTED).toString('latin1');
  private held = '';

  constructor(secrets: readonly string[]) {
    const unique = [...new Set(secrets.filter((s) => s.length >= 6))];
    // Longest first, so a secret that contains another is replaced whole.
    this.needles = unique.map((s) => Buffer.from(s, 'utf8').toString('latin1')).sort((a, b) => b.length - a.length);
  }

  /** The redacted bytes that can be emitted now. */
  push(chunk: Buffer): Buffer {
    if (this.needles.length === 0) return chunk;
    let text = this.held + chunk.toString('latin1');
    for (const needle of this.needles) text = text.split(needle).join(this.replacement);
    const keep = this.pendingPrefix(text);
    this.held = text.slice(text.length - keep);
    return Buffer.from(text.slice(0, text.length - keep), 'latin1');
  }

  /** Whatever was held back (it did not turn out to be a secret). */
  end(): Buffer {
    const rest = this.held;
    this.held = '';
    return Buffer.from(rest, 'latin1');
  }

  /** Length of the longest suffix of `text` that is a proper prefix of some secret. */
  private pendingPrefix(text: string): number {
    let best = 0;
    for (const needle of this.needles) {
      for (let k = Math.min(needle.length - 1, text.length); k > best; k--) {
        if (text.endsWith(needle.slice(0, k))) {
          best = k;
          break;
        }
      }
    }
    return best;
  }
}
