/**
 * The logging interface every layer takes as a dependency (pino-compatible:
 * `log.info({ cell: '3-4' }, 'merged')`). `decision` writes one line to the
 * decisions log as well as to the other logs.
 */
export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  /** A decision worth a line in the decisions log (planner choices, resolutions, recoveries). */
  decision(obj: object | string, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** A logger that discards everything (tests, library use). */
export const nullLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  decision: () => undefined,
  child: () => nullLogger,
};
