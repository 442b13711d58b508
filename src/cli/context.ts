import { terminalText } from '../util/safe-print.js';
import type { Command } from 'commander';
import type { ConfigRequest } from '../workflow/config-for.js';

/**
 * What every command needs at start-up, and nothing heavier: the global options and the output
 * helpers. The configuration is `configFor` (workflow/config-for.ts), imported by a command's action
 * with the request `configRequest` makes of the global options.
 */

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

/**
 * What the configuration resolver is asked with: `-C`, `--config`, `--set`, this process's
 * environment; its notices (the file now differs from the run's configuration, ...) go to stderr.
 */
export function configRequest(options: GlobalOptions): ConfigRequest {
  return {
    cwd: options.cwd,
    ...(options.config !== undefined ? { configPath: options.config } : {}),
    sets: options.set,
    env: process.env,
    notify: (notice) => process.stderr.write(terminalText(`${notice}\n`)),
  };
}

/** Results go to stdout; everything else (logs, progress) to stderr. */
export function printResult(text: string): void {
  // What a result holds came from a repository, a check or a model: no control sequence reaches the terminal.
  const safe = terminalText(text);
  process.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

let activeLogFile: string | undefined;

/** The log file of this invocation, once a command opened one (main.ts names it in errors). */
export function currentLogFile(): string | undefined {
  return activeLogFile;
}

/** Record the log file of this invocation (createCliLogger). */
export function setCurrentLogFile(file: string | undefined): void {
  activeLogFile = file;
}
