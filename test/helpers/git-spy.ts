import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './git-repo.js';

/** A `gitBinary` that runs the real git and logs every start, so tests can count processes. */
export interface GitSpy {
  /** Absolute path of the wrapper script: pass it as `new Git({ gitBinary })`. */
  binary: string;
  /** Every git started through the wrapper so far, as its argument list joined by spaces. */
  calls(): string[];
  /** Forget the calls so far. */
  reset(): void;
}

/** A wrapper script around the git on PATH that appends each command line to a log. */
export function gitSpy(): GitSpy {
  const dir = tempDir('splintercat-git-spy-');
  const log = join(dir, 'calls.log');
  const binary = join(dir, 'git-spy');
  writeFileSync(binary, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec git "$@"\n`);
  chmodSync(binary, 0o755);
  return {
    binary,
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    reset: () => writeFileSync(log, ''),
  };
}
