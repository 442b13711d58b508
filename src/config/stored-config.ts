import { isDeepStrictEqual } from 'node:util';
import { defaultWorktreesDir, loadConfig, type LoadedConfig } from './load.js';
import { upgradeStoredSets, upgradeStoredValues } from './old-keys.js';
import type { Config } from './schema.js';

/**
 * A run's configuration as stored in its state at `merge` (and updated by `continue --set`):
 * the effective values (defaults < file < environment < `--set`, templated, paths absolute),
 * so every later command uses what the run started with, wherever it is run from.
 * Never a secret: `llm.api_key` is kept as written in the file when that is a `${VAR}`
 * reference (resolved from the environment at each command), else empty.
 */
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface StoredConfig {
  values: Record<string, JsonValue>;
  /** The file read at `merge`, if any. */
  file: string | null;
  /** SHA-256 of its content then. */
  fileHash: string | null;
  /** The `--set` overrides given so far (`merge`, then each `continue`), secrets left out. */
  sets: string[];
}

/** Keys whose values are secrets: never stored as given, never compared. */
const SECRET_KEYS = ['llm.api_key'];
/** Only a reference to the environment may be stored for a secret key. */
const ENV_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;
/** Variables whose values are secrets (as the logs' redaction names them). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD/i;

/**
 * What to store of a loaded configuration, given the `--set` overrides already stored and the new
 * ones. A value of a secret-named variable of `env` (`*KEY*`, `*TOKEN*`, ...) that a `${VAR}`
 * template put into any value (a check command, say) is stored as that `${VAR}` again, so it
 * is expanded from the environment of each command and never written to disk.
 */
export function storeConfig(
  loaded: LoadedConfig,
  previous: Pick<StoredConfig, 'file' | 'fileHash' | 'sets'> | null,
  sets: readonly string[],
  env: NodeJS.ProcessEnv = {},
): StoredConfig {
  const apiKey = ENV_REFERENCE.test(loaded.writtenApiKey.trim()) ? loaded.writtenApiKey.trim() : '';
  const values = unexpandSecrets(structuredClone(loaded.config) as unknown as Record<string, JsonValue>, env);
  (values.llm as Record<string, JsonValue>).api_key = apiKey;
  return {
    values,
    file: previous ? previous.file : (loaded.file ?? null),
    fileHash: previous ? previous.fileHash : (loaded.fileHash ?? null),
    sets: [...(previous?.sets ?? []), ...sets.filter((s) => !SECRET_KEYS.includes(setKey(s)))],
  };
}

/**
 * A stored configuration as this version spells its keys (see old-keys.ts): a run started by an
 * earlier version goes on with the values it stored.
 */
export function upgradeStoredConfig(stored: StoredConfig): StoredConfig {
  return { ...stored, values: upgradeStoredValues(stored.values), sets: upgradeStoredSets(stored.sets) };
}

/**
 * The configuration of a run from its stored values, with `sets` applied on top and
 * `${VAR}` references (the API key) resolved from `env`. When the stored key is empty,
 * `currentApiKey` (what the file, environment and `--set` give now) is used.
 */
export function configFromStored(
  stored: StoredConfig,
  options: { env: NodeJS.ProcessEnv; sets?: string[]; currentApiKey?: string },
): LoadedConfig {
  const workdir = ((stored.values.target ?? {}) as { workdir?: unknown }).workdir;
  const loaded = loadConfig({
    cwd: typeof workdir === 'string' ? workdir : '/',
    base: upgradeStoredValues(stored.values),
    env: options.env,
    sets: options.sets ?? [],
  });
  if (loaded.config.llm.api_key === '' && options.currentApiKey) loaded.config.llm.api_key = options.currentApiKey;
  return loaded;
}

/** The dot-paths whose values differ between two configurations (secrets left out), sorted. */
export function configChanges(a: Config, b: Config): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, path: string[]): void => {
    const at = path.join('.');
    if (SECRET_KEYS.includes(at)) return;
    if (isRecord(x) && isRecord(y) && path.length < 2) {
      for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) walk(x[key], y[key], [...path, key]);
      return;
    }
    if (isRecord(x) && isRecord(y) && (at === 'check.commands' || at === 'llm.prices' || at === 'resolve.rules')) {
      for (const key of new Set([...Object.keys(x), ...Object.keys(y)]))
        if (!isDeepStrictEqual(x[key], y[key])) out.push(`${at}.${key}`);
      return;
    }
    if (!isDeepStrictEqual(x, y)) out.push(at);
  };
  walk(a, b, []);
  return out.sort();
}

/**
 * The keys on which another clone's stored configuration differs from this clone's own, read with
 * its paths moved from `foreignDir` to `ownDir` (so one file on two clones differs in no key). It is
 * only compared: a configuration that crossed a remote is never used. Null (none stored): no key.
 */
export function foreignConfigChanges(
  foreign: StoredConfig | null,
  foreignDir: string,
  own: StoredConfig,
  ownDir: string,
): string[] {
  if (foreign === null) return [];
  // A clone on an earlier version spells some keys otherwise: the same value is no difference.
  const values = upgradeStoredValues(foreign.values);
  // Each clone's paths name its own directory, and its worktrees' default one beside it.
  const moved = relocate(
    relocate(values, defaultWorktreesDir(foreignDir), defaultWorktreesDir(ownDir)),
    foreignDir,
    ownDir,
  );
  return configChanges(moved as unknown as Config, own.values as unknown as Config);
}

/** Every string of `value` that starts with directory `from`, moved to `to`. */
function relocate(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string')
    return from !== '' && (value === from || value.startsWith(`${from}/`)) ? to + value.slice(from.length) : value;
  if (Array.isArray(value)) return value.map((v) => relocate(v, from, to));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, relocate(v, from, to)]));
  return value;
}

/** Every occurrence of a secret variable's value in the strings of `values`, replaced by `${NAME}`. */
function unexpandSecrets(values: Record<string, JsonValue>, env: NodeJS.ProcessEnv): Record<string, JsonValue> {
  const secrets = Object.entries(env)
    .filter(
      (entry): entry is [string, string] =>
        SECRET_NAME.test(entry[0]) && typeof entry[1] === 'string' && entry[1].length >= 6,
    )
    .sort((a, b) => b[1].length - a[1].length);
  if (secrets.length === 0) return values;
  const walk = (value: JsonValue): JsonValue => {
    if (typeof value === 'string')
      return secrets.reduce((text, [name, secret]) => text.split(secret).join(`\${${name}}`), value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(values) as Record<string, JsonValue>;
}

function setKey(assignment: string): string {
  const eq = assignment.indexOf('=');
  return (eq < 0 ? assignment : assignment.slice(0, eq)).trim();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
