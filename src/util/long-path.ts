import { closeSync, constants, openSync } from 'node:fs';

/** Linux's PATH_MAX: a path of this many bytes or more, given to one system call, fails with ENAMETOOLONG. */
const PATH_MAX = 4096;
/** How much of a long path one opened directory stands for. */
const STEP = 3000;

/**
 * Run `use` with a path that names `full` and fits in one system call. A file upstream put deep
 * in a worktree (a 4,053-byte path under the worktree's own directory) is past PATH_MAX, which
 * git reaches relative to the working tree but Node's fs cannot: on Linux the path is walked down
 * through directories opened on the way (`/proc/self/fd/N/REST`), closed once `use` is done.
 * A short path, or another system, is given as it is.
 */
export function withReachablePath<T>(full: string, use: (path: string) => T): T {
  if (Buffer.byteLength(full) < PATH_MAX - 1 || process.platform !== 'linux') return use(full);
  const fds: number[] = [];
  const close = (): void => {
    for (const fd of fds.splice(0)) closeSync(fd);
  };
  let result: T;
  try {
    let base = '';
    let rest = full;
    while (Buffer.byteLength(base + rest) >= PATH_MAX - 1) {
      const parts = rest.split('/');
      let k = 0;
      let bytes = 0;
      while (k < parts.length - 1 && bytes + Buffer.byteLength(parts[k] as string) + 1 <= STEP)
        bytes += Buffer.byteLength(parts[k++] as string) + 1;
      // One name longer than a step: nothing to walk through, the call says so itself.
      if (k === 0 || (k === 1 && parts[0] === '')) break;
      const fd = openSync(base + parts.slice(0, k).join('/'), constants.O_RDONLY | constants.O_DIRECTORY);
      fds.push(fd);
      base = `/proc/self/fd/${fd}/`;
      rest = parts.slice(k).join('/');
    }
    result = use(base + rest);
  } catch (error) {
    close();
    throw error;
  }
  if (result instanceof Promise) return result.finally(close) as T;
  close();
  return result;
}
