import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  configChanges,
  configFromStored,
  loadConfig,
  registerConfigSecrets,
  storeConfig,
  upgradeStoredConfig,
  type Config,
  type LoadedConfig,
  type StoredConfig,
  type StrategyName,
} from '../config/index.js';
import { ConfigError, UsageError } from '../errors/index.js';
import { Git, locateRepository } from '../git/index.js';
import { RunStore } from '../store/index.js';
import { loadRunState } from '../store/run-persistence.js';
import type { RunState } from '../store/run-state.js';
import { configBeforeMerge } from './checkout-config.js';
import { findRun } from './find-run.js';
import { printableName } from '../util/safe-print.js';

/**
 * The configuration resolver: the one place that decides which configuration a command uses.
 * Every command asks `configFor`, in one of three cases.
 *
 * 1. **A new merge** (`merge`, `join`, `demo`): the person's own file and flags. `--config FILE`,
 *    else `splintercat.yaml` of the main checkout of the repository holding the current directory
 *    (from any linked worktree too), as the checkout had it before a merge in progress; over it the
 *    `SPLINTERCAT_SECTION__KEY` variables, then `--set`, then the flags of `merge` (`--strategy`,
 *    `--resolver`, `--no-first-parent`). The result is stored in the run's state: from then on it is
 *    the run's own configuration.
 * 2. **An existing run** (`continue`, `status`, `abort`, `report`, `ui`, `log`, `doctor`, `share`,
 *    `cache`): the configuration stored with the run, whatever the file says now, plus what may change
 *    between two commands of one run: this command's `--set` (stored for the next commands when it
 *    drives the run, as `continue --set` does) and the API key, read from the environment at each
 *    command and never stored. The file counts only for a run that stores no configuration (a state
 *    written by an older version) or one naming another clone's directory; a file that now differs
 *    from the run's configuration is said in a notice, never taken.
 * 3. **A command inside a merge, or the merge driver** (`check`, `resolve`, `eval`, and
 *    `splintercat driver` run by `git merge`): `check` runs what the run runs: the unfinished run's
 *    stored configuration when the repository has one (a later edit of the file does not count),
 *    else the main checkout's file; `resolve`, `eval` and the driver read the file of the directory
 *    they run in, as it was before the merge in progress.
 *
 * Trust, in every case: commands, endpoints, keys and paths come only from the person's own
 * configuration. While a merge (cherry-pick, revert, rebase) is in progress the working tree's file
 * may be the one the merged side brought: then HEAD's committed file counts, or none
 * (checkout-config.ts). A stored configuration naming another directory (a state copied from another
 * clone, rebuilt from its journal) is never used, nor one that crossed a remote (`join` compares it
 * only). Every configuration resolved makes its secrets known to the process, to be redacted.
 */
export const configFor = {
  newMerge,
  run,
  storedRun,
  inMerge,
};

export interface ConfigRequest {
  cwd: string;
  /** `--config FILE` (relative to cwd). */
  configPath?: string;
  /** `--set` overrides of this command. */
  sets: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Told each notice for the person: the file now differs from the run's configuration, ... */
  notify?: (notice: string) => void;
}

/** The flags of `merge` that set configuration keys (`merge.strategy`, `merge.resolver`, `imerge.first_parent`). */
export interface MergeFlags {
  strategy?: StrategyName;
  resolver?: Config['merge']['resolver'];
  firstParent?: boolean;
}

/** Case 1: the new run's configuration, and what its state stores of it. */
interface NewMergeConfig {
  config: Config;
  stored: StoredConfig;
}

/** Case 2: which run, and whether the command can do without it or without its stored configuration. */
interface RunRequest extends ConfigRequest {
  /** `--name`. */
  name?: string | undefined;
  /**
   * A run must be found (continue, status, abort, report, ui, doctor); else (cache) a repository
   * with no run falls back to the file.
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
}

/** Case 3: what the command is. */
interface InMergeSituation {
  /** `check`: the unfinished run's configuration when there is one. */
  check?: boolean;
  /** The merge driver: run inside `git merge`, before git records that a merge is in progress. */
  driver?: boolean;
}

/** Case 1: see the module comment. */
async function newMerge(request: ConfigRequest, flags: MergeFlags = {}): Promise<NewMergeConfig> {
  const loaded = await personsFile(request);
  const config = known(withFlags(loaded.config, flags), request.env);
  return { config, stored: storeConfig({ ...loaded, config }, null, request.sets, request.env) };
}

/** The configuration with the flags of `merge` applied (a copy). */
function withFlags(config: Config, flags: MergeFlags): Config {
  return {
    ...config,
    imerge: { ...config.imerge, ...(flags.firstParent === false ? { first_parent: false } : {}) },
    merge: {
      ...config.merge,
      ...(flags.strategy ? { strategy: flags.strategy } : {}),
      ...(flags.resolver ? { resolver: flags.resolver } : {}),
    },
  };
}

/**
 * Case 3: see the module comment. Warnings: check names the configuration uses that
 * `check.commands` does not define.
 */
async function inMerge(
  request: ConfigRequest,
  situation: InMergeSituation = {},
): Promise<{ config: Config; warnings: string[] }> {
  if (situation.check) return { config: await checkConfig(request), warnings: [] };
  const source = request.configPath === undefined ? await configBeforeMerge(request.cwd, situation.driver) : undefined;
  const loaded = loadConfig({
    cwd: request.cwd,
    ...(request.configPath !== undefined ? { configPath: request.configPath } : {}),
    sets: [...request.sets],
    env: request.env,
    ...(source !== undefined ? { source } : {}),
  });
  return { config: known(loaded.config, request.env, [request.cwd]), warnings: loaded.warnings };
}

/** `check NAME`: the unfinished run's configuration when the repository has one, else the file (of the main checkout; of `cwd` outside a repository). */
async function checkConfig(request: ConfigRequest): Promise<Config> {
  let workdir = request.cwd;
  try {
    workdir = (await personsFile(request)).config.target.workdir;
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error; // a broken file: the run's own configuration may still serve
  }
  if ((await locateRepository(workdir)) === null) return known((await personsFile(request)).config, request.env);
  const opened = await run({ ...request, runRequired: false, configRequired: true });
  opened.git.close();
  return opened.config;
}

/** Every configuration resolved makes its secrets known to the process, to be redacted wherever they turn up. */
function known(config: Config, env: NodeJS.ProcessEnv, checkouts: string[] = []): Config {
  registerConfigSecrets(config, env, checkouts);
  return config;
}

/**
 * The person's file as `merge` reads it: `--config`, else `splintercat.yaml` in the main checkout
 * of the repository holding `cwd` (else in `cwd`, outside any repository), as it was before a
 * merge in progress.
 */
async function personsFile(request: ConfigRequest, sets: readonly string[] = request.sets): Promise<LoadedConfig> {
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

/** Case 2: the run a command acts on and the configuration it uses (see the module comment). */
async function run(request: RunRequest): Promise<RunConfig> {
  let fileError: unknown = null;
  let now: LoadedConfig | null = null;
  try {
    now = await personsFile(request);
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
  const chosen = await runOrFile(request, state, store, now, fileError);
  for (const notice of chosen.notices) request.notify?.(notice);
  const config = known(chosen.config, request.env);
  return { config, git: new Git({ cwd: config.target.workdir }), store, name, state, stored: chosen.stored };
}

/** The run's own stored configuration (with this command's `--set`), else the file's: see the module comment. */
async function runOrFile(
  request: RunRequest,
  state: RunState | null,
  store: RunStore,
  now: LoadedConfig | null,
  fileError: unknown,
): Promise<{ config: Config; stored: StoredConfig | null; notices: string[] }> {
  const notices: string[] = [];
  const foreign = state?.config ? await foreignWorkdir(state.config, store) : null;
  if (foreign !== null) notices.push(foreignNotice(foreign));
  if (state?.config && foreign === null) {
    // Stored by an earlier version, perhaps: its keys as this one spells them, and stored so from now on.
    const original = upgradeStoredConfig(state.config);
    let stored = original;
    const loaded = configFromStored(stored, {
      env: request.env,
      sets: [...request.sets],
      currentApiKey: now?.config.llm.api_key ?? '',
    });
    if (request.sets.length > 0) stored = storeConfig(loaded, stored, request.sets, request.env);
    notices.push(...(await fileNotices(request, stored, original, now === null ? fileError : null, now)));
    return { config: loaded.config, stored, notices };
  }
  if (now === null) throw fileError;
  if (state && request.configRequired && now.file === undefined) {
    throw new UsageError('run_config_missing', {
      what: `The merge '${state.name}' stores no configuration, and no splintercat.yaml was found`,
      why: 'Its state was written by an older splintercat, which did not store the configuration; running it with the defaults would skip its checks',
      fix: [`Put its splintercat.yaml in ${state.workdir} (or pass --config FILE), then run the command again`],
    });
  }
  return { config: now.config, stored: state ? storeConfig(now, null, request.sets, request.env) : null, notices };
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
 * Case 2 without a command: the configuration run `state` stored for itself, when it is this
 * repository's (see `foreignWorkdir`); null when it stores none or another clone's. What `abort`
 * removes and `doctor` inspects is where this configuration put it, whatever the file says now.
 */
async function storedRun(state: RunState | null, store: RunStore): Promise<Config | null> {
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
  request: RunRequest,
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
    now = loaded !== null && sameSets(original.sets, request.sets) ? loaded : await personsFile(request, original.sets);
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
