import { closeSync, openSync, readSync, statSync, type Stats } from 'node:fs';

const CHUNK = 64 * 1024;

/** Bytes `from`..`to` of the file at `path`. */
function readRange(path: string, from: number, to: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const out = Buffer.alloc(to - from);
    let done = 0;
    while (done < out.length) {
      const read = readSync(fd, out, done, out.length - done, from + done);
      if (read === 0) break;
      done += read;
    }
    return out.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/**
 * The last `n` lines of a file, read backwards a chunk at a time (a log of many megabytes is not read
 * whole), and the size they end at, where following it starts.
 */
export function lastLines(path: string, n: number): { lines: string[]; end: number } {
  const end = statSync(path).size;
  let start = end;
  let text = Buffer.alloc(0);
  // n + 1 line ends: the one before the first line wanted, beside the one ending the file.
  while (start > 0 && text.filter((byte) => byte === 0x0a).length <= n) {
    const from = Math.max(0, start - CHUNK);
    text = Buffer.concat([readRange(path, from, start), text]);
    start = from;
  }
  const lines = text.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { lines: n === 0 ? [] : lines.slice(-n), end };
}

export interface FollowOptions {
  /** Where to start reading (the `end` of `lastLines`). */
  from: number;
  /** How often the file is looked at, in milliseconds. */
  intervalMs?: number;
  signal: AbortSignal;
}

/**
 * Hand every complete line appended to `path` to `onLines` until `signal` aborts, as `tail -F`
 * does: a file rotated away (a new inode) or truncated is read again from its start, and one not
 * there for a while is waited for. The file is looked at on a timer against the position read so
 * far, so a write between two looks is never missed, on any file system.
 */
export function followFile(path: string, onLines: (lines: string[]) => void, options: FollowOptions): Promise<void> {
  let position = options.from;
  let inode = statOrNull(path)?.ino ?? 0;
  let partial = '';
  const look = (): void => {
    const now = statOrNull(path);
    if (now === null) return; // gone (being rotated): a later look finds the new file
    if (now.ino !== inode || now.size < position) {
      inode = now.ino;
      position = 0;
      partial = '';
    }
    if (now.size === position) return;
    const text = partial + readRange(path, position, now.size).toString('utf8');
    position = now.size;
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    if (lines.length > 0) onLines(lines);
  };
  return new Promise((done) => {
    if (options.signal.aborted) return done();
    const timer = setInterval(look, options.intervalMs ?? 250);
    options.signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        done();
      },
      { once: true },
    );
    look();
  });
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
