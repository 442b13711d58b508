import type { Config } from '../config/index.js';
import { createLogger, secretsFromEnv, type LoggerHandle } from '../log/index.js';
import { setCurrentLogFile, type GlobalOptions } from './context.js';

/**
 * The logger of a command: console on stderr (DEBUG with --verbose); with a loaded
 * configuration also the JSON file and decisions log under `log.dir`. The configured
 * API key and every `*KEY*`/`*TOKEN*` variable are redacted from all of them.
 */
export function createCliLogger(
  options: GlobalOptions,
  config?: Config,
  consoleStream?: { write(chunk: string): void },
): LoggerHandle {
  const secrets = [...secretsFromEnv(process.env), ...(config?.llm.api_key ? [config.llm.api_key] : [])];
  const handle = createLogger({
    verbose: options.verbose,
    consoleLevel: config?.log.console_level ?? 'info',
    ...(config
      ? {
          logDir: config.log.dir,
          logRoot: config.target.workdir,
          fileLevel: config.log.file_level,
          maxSizeMb: config.log.max_size_mb,
          retentionDays: config.log.retention_days,
        }
      : {}),
    secrets,
    ...(consoleStream ? { consoleStream, colorize: Boolean(process.stderr.isTTY) } : {}),
  });
  setCurrentLogFile(handle.logFile);
  return handle;
}
