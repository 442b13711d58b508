import { errorKinds, type CodeOf, type ErrorCode, type ErrorKind } from './error-codes.js';

const marker = Symbol.for('splintercat.error');

/** Everything a user needs to act on a failure: what, the likely cause, the fix, where to look. */
export interface ErrorDetails {
  /** One line: what went wrong. */
  what: string;
  /** The likely cause (one or more sentences). */
  why?: string;
  /** What to do about it: concrete steps or commands. */
  fix?: string | string[];
  /** Where more information is: a log file, a state file. */
  where?: string;
  cause?: unknown;
}

/**
 * The one base error of splintercat. `code` is a stable string callers and tests
 * branch on; its `kind` (from `errorKinds`) says how it is handled, and only `src/cli`
 * turns a kind into an exit code. The message is what/why/fix/where so only `src/cli` formats it.
 * Marked with a global symbol so `isInstance` survives duplicate package copies.
 */
export class SplintercatError extends Error {
  readonly [marker] = true;
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly what: string;
  readonly why: string | undefined;
  readonly fix: string[];
  readonly where: string | undefined;
  constructor(code: ErrorCode, details: ErrorDetails) {
    super(details.what, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'SplintercatError';
    this.code = code;
    this.kind = errorKinds[code];
    this.what = details.what;
    this.why = details.why;
    this.fix = details.fix === undefined ? [] : Array.isArray(details.fix) ? details.fix : [details.fix];
    this.where = details.where;
  }

  static isInstance(value: unknown): value is SplintercatError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/** A usage or configuration problem (kind `usage`). */
export class UsageError extends SplintercatError {
  constructor(code: CodeOf<'usage'>, details: ErrorDetails) {
    super(code, details);
    this.name = 'UsageError';
  }
}

/** One problem found in a configuration file, prefixed by its dot-path. */
export interface ConfigIssue {
  path: string;
  message: string;
  /** 1-based line in the file, when the YAML parser knows it. */
  line?: number;
  /** The `--set` or environment variable the value came from, when not the file. */
  from?: string;
}

/** Where an issue's value was written: its `--set` or variable, else the file's line. */
function issueOrigin(issue: ConfigIssue, where: string): string {
  if (issue.from !== undefined) return ` (from ${issue.from})`;
  return issue.line !== undefined ? ` (${where}:${issue.line})` : '';
}

export class ConfigError extends SplintercatError {
  readonly issues: ConfigIssue[];
  readonly file: string | undefined;

  constructor(issues: ConfigIssue[], file: string | undefined, details?: Partial<ErrorDetails>) {
    const where = file ?? 'configuration';
    const outside = issues.length > 0 && issues.every((i) => i.from !== undefined);
    super('config_invalid', {
      what:
        details?.what ??
        (outside ? 'Invalid configuration from --set or the environment' : `Invalid configuration in ${where}`),
      why: details?.why ?? issues.map((i) => `${i.path || '(root)'}: ${i.message}${issueOrigin(i, where)}`).join('\n'),
      fix: details?.fix ?? [
        outside
          ? 'Correct the --set values or variables named above'
          : `Edit ${where} and correct the keys listed above`,
        'Run `splintercat init --force` to see a commented default file',
      ],
      where: details?.where ?? file,
      cause: details?.cause,
    });
    this.name = 'ConfigError';
    this.issues = issues;
    this.file = file;
  }
}

/** The run cannot go on without a person (kind `needs_person`). */
export class NeedsPersonError extends SplintercatError {
  constructor(code: CodeOf<'needs_person'>, details: ErrorDetails) {
    super(code, details);
    this.name = 'NeedsPersonError';
  }
}
