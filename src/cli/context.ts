import type { Command } from 'commander';
import { loadConfig, type Config, type LoadedConfig } from '../config/index.js';
import { createLogger, secretsFromEnv, type LoggerHandle } from '../log/index.js';

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

let activeLogFile: string | undefined;

/** The log file of this invocation, once a command opened one (main.ts names it in errors). */
export function currentLogFile(): string | undefined {
  return activeLogFile;
}

/**
 * The logger of a command: console on stderr (DEBUG with --verbose); with a loaded
 * configuration also the JSON file and decisions log under `log.dir`. The configured
 * API key and every `*KEY*`/`*TOKEN*` variable are redacted from all of them.
 */
export function createCliLogger(options: GlobalOptions, config?: Config): LoggerHandle {
  const secrets = [...secretsFromEnv(process.env), ...(config?.llm.api_key ? [config.llm.api_key] : [])];
  const handle = createLogger({
    verbose: options.verbose,
    consoleLevel: config?.log.console_level ?? 'info',
    ...(config
      ? { logDir: config.log.dir, fileLevel: config.log.file_level, maxSizeMb: config.log.max_size_mb, retentionDays: config.log.retention_days }
      : {}),
    secrets,
  });
  activeLogFile = handle.logFile;
  return handle;
}
