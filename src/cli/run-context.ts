import { loadConfig, registerConfigSecrets, type Config, type LoadedConfig } from '../config/index.js';
import {
  commandConfig,
  loadRepoConfig,
  openRunConfig,
  type ConfigRequest,
  type RunConfig,
} from '../workflow/run-config.js';
import { configBeforeMerge } from '../workflow/checkout-config.js';
import type { GlobalOptions } from './context.js';
import { terminalText } from '../util/safe-print.js';

/**
 * Load the configuration as the global options say (the file of the current directory: resolve,
 * driver, eval), as the checkout had it before a merge in progress (workflow/checkout-config.ts):
 * never the file a merge of upstream brought. `merging`: a merge driver, run inside `git merge`.
 */
export async function loadCliConfig(options: GlobalOptions, merging = false): Promise<LoadedConfig> {
  const source = options.config === undefined ? await configBeforeMerge(options.cwd, merging) : undefined;
  return known(
    loadConfig({
      cwd: options.cwd,
      configPath: options.config,
      sets: options.set,
      env: process.env,
      ...(source !== undefined ? { source } : {}),
    }),
    [options.cwd],
  );
}

/** Every configuration a command loads makes its secrets known to the process, to be redacted wherever they turn up. */
function known<T extends { config: Config }>(loaded: T, checkouts: string[] = []): T {
  registerConfigSecrets(loaded.config, process.env, checkouts);
  return loaded;
}

/** Load the configuration as `merge` does: the file of the main checkout, from any directory of the repository or its worktrees. */
export async function loadMergeConfig(options: GlobalOptions): Promise<LoadedConfig> {
  return known(await loadRepoConfig(configRequest(options)));
}

/**
 * The run a command acts on and the configuration it uses (the run's own, stored at `merge`),
 * from any directory of the repository or its worktrees; notices go to stderr.
 */
export async function openCliRun(
  options: GlobalOptions,
  name: string | undefined,
  needs: { runRequired: boolean; configRequired: boolean },
): Promise<RunConfig> {
  const opened = known(
    await openRunConfig({ ...configRequest(options), ...(name !== undefined ? { name } : {}), ...needs }),
  );
  for (const notice of opened.notices) process.stderr.write(terminalText(`${notice}\n`));
  return opened;
}

/** The configuration of `check NAME`: the unfinished run's, else the file's; notices go to stderr. */
export async function loadCommandConfig(options: GlobalOptions): Promise<Config> {
  const { config, notices } = known(await commandConfig(configRequest(options)));
  for (const notice of notices) process.stderr.write(terminalText(`${notice}\n`));
  return config;
}

function configRequest(options: GlobalOptions): ConfigRequest {
  return {
    cwd: options.cwd,
    ...(options.config !== undefined ? { configPath: options.config } : {}),
    sets: options.set,
    env: process.env,
  };
}
