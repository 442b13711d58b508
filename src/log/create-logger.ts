import { join } from 'node:path';
import pino from 'pino';
import type { Logger } from './logger.js';
import { prettyLine } from './pretty-line.js';
import { redactSecrets } from './redact.js';
import { RollingFile } from './rolling-file.js';
import { printableLine, terminalText } from '../util/safe-print.js';

type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface CreateLoggerOptions {
  /** DEBUG on the console. */
  verbose?: boolean;
  consoleLevel?: LogLevel;
  /** Directory of `splintercat.log` (JSON, DEBUG) and `decisions.log`; none = console only. */
  logDir?: string;
  /** The working tree `logDir` may lie in (`target.workdir`): no link inside it is followed to write the logs. */
  logRoot?: string;
  fileLevel?: LogLevel;
  maxSizeMb?: number;
  retentionDays?: number;
  /** Secret values (API keys) scrubbed from every line, wherever they appear. */
  secrets?: string[];
  /** Where the console output goes (default: stderr, synchronously). */
  consoleStream?: { write(chunk: string): void };
  /** Colours on the console (default: when it is stderr on a terminal). */
  colorize?: boolean;
  now?: () => Date;
}

export interface LoggerHandle {
  logger: Logger;
  logFile: string | undefined;
  decisionsFile: string | undefined;
  close(): void;
}

/** The JSON log of every command in `log.dir` (what error messages point to and `splintercat log` prints). */
export function mainLogPath(logDir: string): string {
  return join(logDir, 'splintercat.log');
}

const DECISION = 35;
const levelNames: Record<number, string> = {
  20: 'DEBUG',
  30: 'INFO',
  35: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/**
 * splintercat's logging: a console for the person on stderr (INFO, DEBUG with --verbose),
 * a JSON DEBUG file rotated by size and kept `retentionDays`, and a decisions log
 * with one readable line per decision (and per warning or error). Secrets are
 * redacted before anything reaches any of them.
 */
export function createLogger(options: CreateLoggerOptions = {}): LoggerHandle {
  const now = options.now ?? (() => new Date());
  const consoleLevel = options.verbose ? 'debug' : (options.consoleLevel ?? 'info');
  const out = options.consoleStream ?? { write: (chunk: string) => void process.stderr.write(chunk) };
  const prettify = prettyLine({
    colorize: options.colorize ?? (!options.consoleStream && Boolean(process.stderr.isTTY)),
    // Details (the objects) go to the JSON file; the console shows them only with --verbose.
    details: options.verbose === true,
    time: 'time',
  });
  const streams: pino.StreamEntry[] = [
    { level: consoleLevel, stream: { write: (line: string) => out.write(terminalText(prettify(line))) } },
  ];
  let file: RollingFile | undefined;
  let decisions: RollingFile | undefined;
  if (options.logDir) {
    const maxBytes = (options.maxSizeMb ?? 10) * 1024 * 1024;
    const keep = options.retentionDays ?? 7;
    const root = options.logRoot ?? options.logDir;
    file = new RollingFile(mainLogPath(options.logDir), maxBytes, keep, now, root);
    decisions = new RollingFile(join(options.logDir, 'decisions.log'), maxBytes, keep, now, root);
    const decisionsFile = decisions;
    streams.push({ level: options.fileLevel ?? 'debug', stream: { write: (line: string) => file?.write(line) } });
    streams.push({
      level: 'decision' as pino.Level,
      stream: {
        write: (line: string) => {
          const entry = JSON.parse(line) as { level: number; time: number; msg?: string; component?: string };
          const d = new Date(entry.time);
          const p = (n: number): string => String(n).padStart(2, '0');
          const stamp = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
          decisionsFile.write(`${stamp} | ${(levelNames[entry.level] ?? 'INFO').padEnd(5)} | ${entry.msg ?? ''}\n`);
        },
      },
    });
  }
  const base = pino(
    {
      level: 'debug',
      customLevels: { decision: DECISION },
      base: undefined,
      timestamp: () => `,"time":${now().getTime()}`,
    },
    pino.multistream(streams, { levels: { decision: DECISION } as never }),
  );
  const secrets = options.secrets ?? [];
  return {
    logger: wrap(base, secrets),
    logFile: file?.path,
    decisionsFile: decisions?.path,
    close: () => {
      file?.close();
      decisions?.close();
    },
  };
}

type PinoWithDecision = pino.Logger<'decision'>;

function wrap(p: PinoWithDecision, secrets: string[]): Logger {
  const emit =
    (level: 'debug' | 'info' | 'warn' | 'error' | 'decision') =>
    (obj: object | string, msg?: string): void => {
      // A message is one line: a path, a teammate's name or a model's words in it cannot start another one.
      if (typeof obj === 'string') p[level](printableLine(redactSecrets(obj, secrets)));
      else
        p[level](
          redactSecrets(obj, secrets) as object,
          msg === undefined ? undefined : printableLine(redactSecrets(msg, secrets)),
        );
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    decision: emit('decision'),
    child: (bindings) => wrap(p.child(redactSecrets(bindings, secrets)) as PinoWithDecision, secrets),
  };
}
