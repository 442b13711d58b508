import { constants, createWriteStream, openSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { SplintercatError, UsageError } from '../errors/index.js';
import { ensureOwnDir } from '../log/own-dir.js';

/**
 * A new check log `DIR/LABEL-YYYYMMDD-HHMMSS.log`, created exclusively (never through a link):
 * parallel runs started in the same second take the next free suffix. The directory is created if
 * missing, never through a link inside `root`, the working tree (`target.workdir`; see own-dir.ts).
 */
export function createCheckLog(
  outputDir: string,
  label: string,
  now: Date,
  root: string,
): { path: string; out: WriteStream } {
  try {
    ensureOwnDir(outputDir, root);
  } catch (error) {
    if (SplintercatError.isInstance(error)) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC') throw diskFull(outputDir, error);
    throw new SplintercatError('check_log_dir', {
      what: `Cannot create the check log directory ${outputDir}`,
      why: (error as Error).message,
      fix: 'Set log.dir to a writable directory',
      cause: error,
    });
  }
  const stamp = timestamp(now);
  const safe = label.replace(/[^A-Za-z0-9._-]/g, '_');
  for (let n = 1; ; n++) {
    const path = join(outputDir, n === 1 ? `${safe}-${stamp}.log` : `${safe}-${stamp}-${n}.log`);
    try {
      const fd = openSync(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o644,
      );
      return { path, out: createWriteStream(path, { fd }) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code === 'ENOSPC') throw diskFull(path, error);
      throw error;
    }
  }
}

export function diskFull(where: string, cause: unknown): SplintercatError {
  return new SplintercatError('disk_full', {
    what: `The disk is full: cannot write check output under ${where}`,
    fix: [`Free space (old logs in ${where} are safe to delete by hand)`, 'Or point log.dir at another disk'],
    cause,
  });
}

/** The error for a check name that `check.commands` does not define. */
export function unknownCheck(name: string, defined: string[]): UsageError {
  return new UsageError('check_unknown', {
    what: `Check '${name}' is not defined`,
    why:
      defined.length > 0 ? `Defined checks: ${defined.join(', ')}` : 'No checks are defined (check.commands is empty)',
    fix: `Add it to splintercat.yaml:\n  check:\n    commands:\n      ${name}: "make -j2"`,
  });
}

/** The last `n` lines of a text (a final newline does not make an empty line). */
export function lastLines(text: string, n: number): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-n);
}

function timestamp(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}
