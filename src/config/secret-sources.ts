import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSecretName } from '../util/secret-variable.js';
import { registerSecrets } from '../util/secret-registry.js';
import type { Config } from './schema.js';

/** Names of env files a checkout keeps its keys in (`.env`, `.env.local`, `.env.production`, ...). */
const ENV_FILE = /^\.env(\..+)?$/;
/** A line `NAME=value` (optionally `export NAME=...`, the value optionally quoted). */
const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s#]*))/;

/** The values of credential-named variables in the env files of `dir` (never read into the environment). */
function dotenvSecrets(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => ENV_FILE.test(n));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    let text: string;
    try {
      text = readFileSync(join(dir, name), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const m = ASSIGNMENT.exec(line);
      const value = m?.[2] ?? m?.[3] ?? m?.[4];
      if (m?.[1] && value && isSecretName(m[1])) out.push(value);
    }
  }
  return out;
}

/** The credentials a URL carries (`https://user:password@host`): the password, and user:password. */
export function urlCredentials(url: string): string[] {
  try {
    const u = new URL(url);
    const password = decodeURIComponent(u.password);
    const user = decodeURIComponent(u.username);
    return password ? [password, `${user}:${password}`, `${u.username}:${u.password}`] : user ? [user] : [];
  } catch {
    return [];
  }
}

/**
 * Make every secret this configuration and environment name known to the process (see
 * util/secret-registry.ts): the API key, the credentials in `llm.base_url`, the credential-named
 * variables of the environment and of the checkout's env files.
 */
export function registerConfigSecrets(config: Config, env: NodeJS.ProcessEnv, checkouts: readonly string[] = []): void {
  registerSecrets([config.llm.api_key, ...urlCredentials(config.llm.base_url)]);
  registerSecrets(Object.entries(env).flatMap(([name, value]) => (isSecretName(name) ? [value] : [])));
  for (const dir of new Set([config.target.workdir, ...checkouts])) registerSecrets(dotenvSecrets(dir));
}
