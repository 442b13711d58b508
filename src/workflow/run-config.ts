import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  configChanges,
  configFromStored,
  loadConfig,
  storeConfig,
  type Config,
  type LoadedConfig,
  type StoredConfig,
} from '../config/index.js';
import { ConfigError, UsageError } from '../errors/index.js';
import { Git, locateRepository } from '../git/index.js';
import { RunStore } from '../store/index.js';
import { loadRunState } from '../store/run-persistence.js';
import type { RunState } from '../store/run-state.js';
import { configBeforeMerge } from './checkout-config.js';
import { printableName } from '../util/safe-print.js';

/**
 * The configuration a command uses, from any directory of the repository or of its worktrees:
 * the file is looked for in the main checkout (not in the worktree a hand-off sent the person
 * to), and a run uses the configuration stored in its state at `merge`.
 */

export interface ConfigRequest {
  cwd: string;
  /** `--config FILE` (relative to cwd). */
  configPath?: string;
  /** `--set` overrides of this command. */
  sets: readonly string[];
  env: NodeJS.ProcessEnv;
}

export interface RunConfigRequest extends ConfigRequest {
  /** `--name`. */
  name?: string;
  /**
   * A run must be found (continue, status, abort, report, ui, doctor); else (check, cache) a
   * repository with no run falls back to the file.
   */
  runRequired: boolean;
  /**
   * The command runs things (continue, check): a run whose state stores no configuration (written
   * before it was stored) needs the file, and never falls back to the defaults.
   */
  configRequired: boolean;
}

export interface RunConfig {
  /** The effective configuration: the run's stored one (with this command's `--set`), else the file's. */
  config: Config;
  /** git in the run's working directory (the main checkout); the caller closes it. */
  git: Git;
  store: RunStore;
  /** The run acted on; null when there is none (only when `runRequired` is false). */
  name: string | null;
  state: RunState | null;
  /** What the run's state should store from now on (the old one plus this command's `--set`). */
  stored: StoredConfig | null;
  /** Notices for the person (stderr): the file now gives another configuration than the run's, ... */
  notices: string[];
}

/**
 * Load the configuration file as `merge` does: `--config`, else `splintercat.yaml` in the main
 * checkout of the repository holding `cwd` (else in `cwd`, outside any repository).
 */
export async function loadRepoConfig(
  request: ConfigRequest,
  sets: readonly string[] = request.sets,
): Promise<LoadedConfig> {
  const location = request.configPath === undefined ? await locateRepository(request.cwd) : null;
  const cwd = location?.mainCheckout ?? request.cwd;
  const source = request.configPath === undefined ? await configBeforeMerge(cwd) : undefined;
  return loadConfig({
    cwd: request.configPath === undefined ? cwd : request.cwd,
    ...(source !== undefined ? { source } : {}),
    ...(request.configPath !== undefined ? { configPath: request.configPath } : {}),
    env: request.env,
    sets: [...sets],
  });
}

/** The run a command acts on and the configuration it uses (see RunConfigRequest). */
export async function openRunConfig(request: RunConfigRequest): Promise<RunConfig> {
  let fileError: unknown = null;
  let now: LoadedConfig | null = null;
  try {
    now = await loadRepoConfig(request);
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    fileError = error;
  }
  const probe = new Git({
    cwd: now?.config.target.workdir ?? (await locateRepository(request.cwd))?.mainCheckout ?? request.cwd,
  });
  let store: RunStore;
  try {
    store = await RunStore.forRepo(probe);
  } finally {
    probe.close();
  }
  const name = request.name ?? findRun(store, now?.config.imerge.name ?? 'upstream-merge', request.runRequired);
  const found = name !== null && store.exists(name) ? readState(store, name, request.configRequired) : null;
  // A finished run no longer decides anything for a command that can do without one (check NAME).
  const state = found?.status === 'done' && !request.runRequired && request.name === undefined ? null : found;
  const notices: string[] = [];
  let config: Config;
  let stored: StoredConfig | null;

  const foreign = state?.config ? await foreignWorkdir(state.config, store) : null;
  if (foreign !== null) notices.push(foreignNotice(foreign));
  if (state?.config && foreign === null) {
    stored = state.config;
    const loaded = configFromStored(stored, {
      env: request.env,
      sets: [...request.sets],
      currentApiKey: now?.config.llm.api_key ?? '',
    });
    config = loaded.config;
    if (request.sets.length > 0) stored = storeConfig(loaded, stored, request.sets, request.env);
    notices.push(...(await fileNotices(request, stored, state.config, now === null ? fileError : null, now)));
  } else {
    if (now === null) throw fileError;
    if (state && request.configRequired && now.file === undefined) {
      throw new UsageError('run_config_missing', {
        what: `The merge '${state.name}' stores no configuration, and no splintercat.yaml was found`,
        why: 'Its state was written by an older splintercat, which did not store the configuration; running it with the defaults would skip its checks',
        fix: [`Put its splintercat.yaml in ${state.workdir} (or pass --config FILE), then run the command again`],
      });
    }
    config = now.config;
    stored = state ? storeConfig(now, null, request.sets, request.env) : null;
  }
  return { config, git: new Git({ cwd: config.target.workdir }), store, name, state, stored, notices };
}

/**
 * The configuration of a command that can do without a run (`check NAME`): the unfinished run's
 * when the repository has one, else the file (of the main checkout; of `cwd` outside a repository).
 */
export async function commandConfig(request: ConfigRequest): Promise<{ config: Config; notices: string[] }> {
  let workdir = request.cwd;
  try {
    workdir = (await loadRepoConfig(request)).config.target.workdir;
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error; // a broken file: the run's own configuration may still serve
  }
  if ((await locateRepository(workdir)) === null)
    return { config: (await loadRepoConfig(request)).config, notices: [] };
  const opened = await openRunConfig({ ...request, runRequired: false, configRequired: true });
  opened.git.close();
  return { config: opened.config, notices: opened.notices };
}

/** The run to act on without --name: the only run, else `imerge.name` if it exists. */
export function findRun(store: RunStore, defaultName: string, required: boolean): string | null {
  const runs = store.list().map((r) => r.name);
  if (runs.length === 1) return runs[0] as string;
  if (store.exists(defaultName)) return defaultName;
  if (!required) return null;
  throw new UsageError('run_name_needed', {
    what:
      runs.length === 0
        ? 'There is no splintercat merge in this repository'
        : 'Several merges exist; say which with --name',
    fix: runs.length === 0 ? 'Start one: splintercat merge SOURCE' : `Existing: ${runs.join(', ')}`,
  });
}

/** The run's state; an unreadable one is the business of the command (doctor, status) unless the configuration is needed from it. */
function readState(store: RunStore, name: string, required: boolean): RunState | null {
  try {
    return loadRunState(store.paths(name));
  } catch (error) {
    if (required) throw error;
    return null;
  }
}

/**
 * The configuration run `state` stored for itself, when it is this repository's (see
 * `foreignWorkdir`); null when it stores none or another clone's. What `abort` removes and
 * `doctor` inspects is where this configuration put it, whatever the file says now.
 */
export async function storedRunConfig(state: RunState | null, store: RunStore): Promise<Config | null> {
  if (!state?.config || (await foreignWorkdir(state.config, store)) !== null) return null;
  return configFromStored(state.config, { env: {} }).config;
}

/**
 * The directory a stored configuration runs in (`target.workdir`) when it is not a checkout of the
 * repository holding the run (`store`), else null. A run's configuration is its own clone's: one
 * naming another directory (a state written elsewhere, rebuilt from another clone's journal) would
 * run this clone's commands, worktrees and removals in someone else's repository.
 */
async function foreignWorkdir(stored: StoredConfig, store: RunStore): Promise<string | null> {
  const workdir = ((stored.values.target ?? {}) as { workdir?: unknown }).workdir;
  if (typeof workdir !== 'string' || !isAbsolute(workdir)) return String(workdir);
  const location = await locateRepository(workdir);
  const own = dirname(store.root);
  return location !== null && sameDir(location.commonDir, own) ? null : workdir;
}

function foreignNotice(workdir: string): string {
  return (
    `The run's stored configuration is for another directory (${printableName(workdir)}), not this repository: ` +
    'it is not used; this clone runs the merge with its own splintercat.yaml (and --set), and stores that for it.'
  );
}

function sameDir(a: string, b: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return real(a) === real(b);
}

/** What to tell the person when the file now says something else than the run's stored configuration. */
async function fileNotices(
  request: ConfigRequest,
  stored: StoredConfig,
  original: StoredConfig,
  fileError: unknown,
  loaded: LoadedConfig | null,
): Promise<string[]> {
  if (fileError !== null) {
    return [
      `The configuration file is invalid now (${(fileError as Error).message.split('\n')[0]}); the run keeps the configuration it started with.`,
    ];
  }
  let now: LoadedConfig;
  try {
    // The file as loaded for this command when it was loaded with the run's own --set (none, mostly): not read twice.
    now =
      loaded !== null && sameSets(original.sets, request.sets) ? loaded : await loadRepoConfig(request, original.sets);
  } catch {
    return [];
  }
  if (now.file === undefined) {
    return original.file === null
      ? []
      : [`${original.file} is not found now; the run keeps the configuration it started with.`];
  }
  const then = configFromStored(original, { env: request.env }).config;
  const changed = configChanges(then, now.config);
  if (changed.length === 0) return [];
  return [
    `${now.file} now gives another configuration than the one this run started with (${changed.join(', ')}); ` +
      `the run keeps its own${stored === original ? '' : ' (with this --set)'}. To change a key for this run: splintercat continue --set KEY=VALUE`,
  ];
}

function sameSets(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((set, i) => set === b[i]);
}
