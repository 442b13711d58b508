import { isSecretName, isSecretVariable } from '../util/secret-variable.js';

/** Shorter values of secret-named variables are flags (`FOO_KEY=1`), not worth redacting from output. */
const MIN_REDACTED_LENGTH = 8;

export interface ScrubOptions {
  /** Secret values (`llm.api_key`): any variable holding one, or the value of a removed `*_KEY`-like one, is removed. */
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
  const keep = new Set(options.passthrough);
  // The values to hide: the given secrets and those of secret-named variables (the provider's
  // OPENROUTER_API_KEY holds the resolved key when llm.api_key is empty), passthrough ones excepted.
  const values = new Set<string>(options.secrets.filter((s) => s.length >= 6));
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isSecretName(name) && !keep.has(name) && value.length >= MIN_REDACTED_LENGTH)
      values.add(value);
  }
  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!keep.has(name) && (isSecretVariable(name) || [...values].some((s) => value.includes(s)))) removed.push(name);
    else out[name] = value;
  }
  return { env: out, removed: removed.sort(), secrets: [...values] };
}
