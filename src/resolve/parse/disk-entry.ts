import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import { withReachablePath } from '../../util/long-path.js';

/**
 * What is at a conflicted path in the working tree, as git would store it: a file's bytes, a
 * link's target (never the file it points to), null for nothing, a directory (a submodule left
 * unpopulated, the other side of a file/directory conflict) or anything git does not store (a
 * FIFO would never finish reading).
 */
function diskEntry(full: string): { bytes: Buffer; link: boolean } | null {
  return withReachablePath(full, (path) => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) return { bytes: Buffer.from(readlinkSync(path)), link: true };
    return st?.isFile() ? { bytes: readFileSync(path), link: false } : null;
  });
}

/** The bytes of `diskEntry`. */
export function diskEntryBytes(full: string): Buffer | null {
  return diskEntry(full)?.bytes ?? null;
}

/**
 * The blob id git would store for `path` in the worktree `git` works in: a file hashed with its
 * path's filters, a link by its own target's name (never through it); null when nothing a blob
 * holds is there (no entry, a directory).
 */
export async function diskEntryId(git: Git, path: string): Promise<string | null> {
  const entry = diskEntry(join(git.cwd, path));
  if (entry === null) return null;
  const how = entry.link ? ['--no-filters'] : [`--path=${path}`];
  return git.text(['hash-object', '--stdin', ...how], { input: entry.bytes });
}
