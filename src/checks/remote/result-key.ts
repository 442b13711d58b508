import { createHmac, timingSafeEqual } from 'node:crypto';
import { registerSecrets } from '../../util/secret-registry.js';

/**
 * The result key: a secret the clones of a team and their CI's pushing job share, and the remote
 * never holds. A request carries its nonce in a commit anyone who reads the remote can read, so
 * the nonce alone tells a result written for the request from one written by whoever copied it;
 * a result signed with the key (HMAC-SHA256 of its record) was written where the key is, by the
 * CI's job that pushes (after the check ran, which never gets the key).
 */
export const RESULT_KEY_VARIABLE = 'SPLINTERCAT_RESULT_KEY';

/** Fewer characters than this cannot be a key anyone chose on purpose (`openssl rand -hex 32` gives 64). */
const MIN_KEY_LENGTH = 16;

/**
 * The result key `env` holds, or null when it holds none. Registered as a secret as soon as it is
 * read, so it is redacted from every log and output and scrubbed from every check's environment.
 */
export function resultKey(env: NodeJS.ProcessEnv): string | null {
  const key = env[RESULT_KEY_VARIABLE]?.trim() ?? '';
  if (key.length < MIN_KEY_LENGTH) return null;
  registerSecrets([key]);
  return key;
}

/** The record's signature: hex HMAC-SHA256 with `key` of the record's canonical JSON, its own `signature` left out. */
export function resultSignature(record: object, key: string): string {
  const { signature: _ignored, ...rest } = record as { signature?: unknown };
  return createHmac('sha256', key).update(canonicalJson(rest)).digest('hex');
}

/** Whether `record` carries the signature `key` gives it (compared in constant time). */
export function signedWith(record: { signature?: string | undefined }, key: string): boolean {
  if (typeof record.signature !== 'string') return false;
  const want = Buffer.from(resultSignature(record, key));
  const got = Buffer.from(record.signature);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** JSON with the keys of every object sorted (and `undefined` members left out, as JSON.stringify does). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
