import type { Command } from 'commander';
import { loadConfig, type LoadedConfig } from '../config/index.js';

/** Options every command accepts (defined on the root program). */
export interface GlobalOptions {
  verbose: boolean;
  config?: string;
  set: string[];
  json: boolean;
  cwd: string;
}

/** The global options as seen from any (sub)command. */
export function globalOptions(command: Command): GlobalOptions {
  let root = command;
  while (root.parent) root = root.parent;
  const merged = command.optsWithGlobals() as Partial<GlobalOptions> & { C?: string };
  return {
    verbose: Boolean(merged.verbose),
    config: merged.config,
    set: merged.set ?? [],
    json: Boolean(merged.json),
    cwd: merged.C ?? process.cwd(),
  };
}

/** Load the configuration as the global options say. */
export function loadCliConfig(options: GlobalOptions): LoadedConfig {
  return loadConfig({ cwd: options.cwd, configPath: options.config, sets: options.set, env: process.env });
}

/** Results go to stdout; everything else (logs, progress) to stderr. */
export function printResult(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
