import { loadConfig, type Config, type LoadedConfig } from '../config/index.js';
import {
  commandConfig,
  loadRepoConfig,
  openRunConfig,
  type ConfigRequest,
  type RunConfig,
} from '../workflow/run-config.js';
import type { GlobalOptions } from './context.js';
import { terminalText } from '../util/safe-print.js';

/** Load the configuration as the global options say (the file of the current directory: init, resolve, driver, eval, imerge). */
export function loadCliConfig(options: GlobalOptions): LoadedConfig {
  return loadConfig({ cwd: options.cwd, configPath: options.config, sets: options.set, env: process.env });
}

/** Load the configuration as `merge` does: the file of the main checkout, from any directory of the repository or its worktrees. */
export function loadMergeConfig(options: GlobalOptions): Promise<LoadedConfig> {
  return loadRepoConfig(configRequest(options));
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
  const opened = await openRunConfig({ ...configRequest(options), ...(name !== undefined ? { name } : {}), ...needs });
  for (const notice of opened.notices) process.stderr.write(terminalText(`${notice}\n`));
  return opened;
}

/** The configuration of `check NAME`: the unfinished run's, else the file's; notices go to stderr. */
export async function loadCommandConfig(options: GlobalOptions): Promise<Config> {
  const { config, notices } = await commandConfig(configRequest(options));
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
