/** Variable names that hold credentials by convention. */
const SECRET_NAME = /(_KEY|_TOKEN|_SECRET|_PASSWORD)$/i;
const OWN_PREFIX = /^SPLINTERCAT_/i;
/** Shorter values of secret-named variables are flags (`FOO_KEY=1`), not worth redacting from output. */
const MIN_REDACTED_LENGTH = 8;

export interface ScrubOptions {
  /** Secret values (the resolved `llm.api_key`): any variable holding one is removed. */
  secrets: readonly string[];
  /** Names kept although they look like secrets (`check.env_passthrough`). */
  passthrough: readonly string[];
}

export interface ScrubbedEnv {
  env: Record<string, string>;
  /** Names removed, for the debug log (never their values). */
  removed: string[];
  /** Values to redact from check output: the given secrets and the values of the secret-named variables removed. */
  secrets: string[];
}

/**
 * The environment a check runs with: without variables named like credentials
 * (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`), without splintercat's own
 * (`SPLINTERCAT_*`, which may carry the key), and without any variable that
 * holds a known secret, except the names listed in `passthrough`.
 */
export function scrubEnv(env: NodeJS.ProcessEnv, options: ScrubOptions): ScrubbedEnv {
  const known = options.secrets.filter((s) => s.length >= 6);
  const keep = new Set(options.passthrough);
  const out: Record<string, string> = {};
  const removed: string[] = [];
  const values = new Set<string>(options.secrets.filter((s) => s !== ''));
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const secret = SECRET_NAME.test(name) || OWN_PREFIX.test(name) || known.some((s) => value.includes(s));
    if (secret && !keep.has(name)) {
      removed.push(name);
      if (value.length >= MIN_REDACTED_LENGTH && SECRET_NAME.test(name)) values.add(value);
      continue;
    }
    out[name] = value;
  }
  return { env: out, removed: removed.sort(), secrets: [...values] };
}
