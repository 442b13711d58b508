import { constants, lstatSync, mkdirSync, openSync, realpathSync, rmSync, writeSync, closeSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

/**
 * Write `data` to `rel` under `root` as a new regular file, whatever is there now (a link a check
 * put in its place is removed, never written through), and only when its directory resolves
 * inside `root`. False, and nothing written, when it does not.
 */
export function replaceFileWithin(root: string, rel: string, data: string | Buffer): boolean {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  const top = realpathSync(root);
  const parent = realpathSync(dirname(abs));
  if (parent !== top && !parent.startsWith(top + sep)) return false;
  const target = join(parent, basename(abs));
  const previous = lstatSync(target, { throwIfNoEntry: false });
  // A regular file keeps its mode (an executable script stays one).
  const mode = previous?.isFile() ? previous.mode & 0o777 : 0o644;
  if (previous !== undefined) rmSync(target, { recursive: true, force: true });
  const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
  return true;
}
