import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

/** What reading a file back gave: its bytes (the last `maxBytes` when longer), or why it was refused. */
export type SafeRead = { ok: true; bytes: Buffer; size: number; truncated: boolean } | { ok: false; reason: string };

export interface SafeReadOptions {
  /** The directory the file must be in (after resolving every link of its parent directories). */
  within: string;
  /** Read at most this many bytes, from the end (a log's tail); default all. */
  maxBytes?: number;
  /** Refuse a file with more than one name (a hard link to a file elsewhere). */
  singleLink?: boolean;
}

/** An open regular file inside `within`, for streaming; the caller closes `fd`. */
export type OpenedFile = { ok: true; fd: number; size: number } | { ok: false; reason: string };

/**
 * Open a file that something untrusted (a check, a model's code) could have replaced since
 * splintercat wrote it: the last component is not followed if it is a link (O_NOFOLLOW), the
 * parent directories must resolve inside `within`, and it must be a regular file (not a FIFO,
 * which O_NONBLOCK keeps from blocking the open, nor a device or a directory).
 */
export function openRegular(path: string, options: SafeReadOptions): OpenedFile {
  let parent: string;
  let root: string;
  try {
    parent = realpathSync(dirname(path));
    root = realpathSync(options.within);
  } catch (error) {
    return { ok: false, reason: `${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  if (parent !== root && !parent.startsWith(root.endsWith(sep) ? root : root + sep))
    return { ok: false, reason: `${path} is not inside ${options.within}` };
  let fd: number;
  try {
    fd = openSync(join(parent, basename(path)), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ELOOP' ? `${path} is a symbolic link` : `${path}: ${code ?? String(error)}` };
  }
  const st = fstatSync(fd);
  const problem = !st.isFile()
    ? `${path} is not a regular file`
    : options.singleLink && st.nlink > 1
      ? `${path} has other names (a hard link)`
      : null;
  if (problem !== null) {
    closeSync(fd);
    return { ok: false, reason: problem };
  }
  return { ok: true, fd, size: st.size };
}

/** Read a file back safely (see `openRegular`); at most the last `maxBytes`. */
export function readRegular(path: string, options: SafeReadOptions): SafeRead {
  const opened = openRegular(path, options);
  if (!opened.ok) return opened;
  try {
    const start = options.maxBytes === undefined ? 0 : Math.max(0, opened.size - options.maxBytes);
    const bytes = Buffer.alloc(opened.size - start);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(opened.fd, bytes, got, bytes.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return { ok: true, bytes: bytes.subarray(0, got), size: opened.size, truncated: start > 0 };
  } finally {
    closeSync(opened.fd);
  }
}
