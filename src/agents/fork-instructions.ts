import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** More than this is cut: the instructions travel with every request. */
const MAX_CHARS = 8_000;

/**
 * `resolve.instructions` as the text sent to the resolver: the file it names (relative to the
 * repository) when it names one, otherwise the text itself.
 */
export function forkInstructions(written: string, workdir: string): string {
  const value = written.trim();
  if (value === '') return '';
  if (!value.includes('\n')) {
    const path = isAbsolute(value) ? value : resolve(workdir, value);
    if (existsSync(path) && statSync(path).isFile()) return readFileSync(path, 'utf8').slice(0, MAX_CHARS);
  }
  return value.slice(0, MAX_CHARS);
}
