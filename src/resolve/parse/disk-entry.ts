import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { withReachablePath } from '../../util/long-path.js';

/**
 * What is at a conflicted path in the working tree, as git would store it: a file's bytes, a
 * link's target (never the file it points to), null for nothing or a directory (a submodule
 * left unpopulated, the other side of a file/directory conflict).
 */
export function diskEntryBytes(full: string): Buffer | null {
  return withReachablePath(full, (path) => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined || st.isDirectory()) return null;
    return st.isSymbolicLink() ? Buffer.from(readlinkSync(path)) : readFileSync(path);
  });
}
