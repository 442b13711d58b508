import type { ErrorKind } from '../errors/index.js';

/** The CLI's exit codes. */
export const ExitCode = {
  Done: 0,
  Failed: 1,
  Usage: 2,
  NeedsPerson: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code of an error's kind: the only place kinds become exit codes. */
export function exitCodeOf(kind: ErrorKind): ExitCode {
  switch (kind) {
    case 'usage':
      return ExitCode.Usage;
    case 'needs_person':
      return ExitCode.NeedsPerson;
    case 'failed':
      return ExitCode.Failed;
  }
}
