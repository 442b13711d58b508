import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Where a generator's header is looked for: a file's first bytes, never the whole of a large lockfile. */
const HEAD_BYTES = 4_096;

/**
 * A regular file opened for reading; null for anything else. The path comes from a merge's
 * content: a link is never followed (O_NOFOLLOW), and a FIFO or a device, which would hang or
 * never end, is not read (O_NONBLOCK, then fstat).
 */
async function openRegularFile(path: string): Promise<{ file: FileHandle; size: number } | null> {
  let file: FileHandle;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  const st = await file.stat().catch(() => null);
  if (st?.isFile()) return { file, size: st.size };
  await file.close();
  return null;
}

/** The first `max` bytes of a regular file as text; null when it is missing or is not one. */
export async function fileHead(path: string, max = HEAD_BYTES): Promise<string | null> {
  const opened = await openRegularFile(path);
  if (opened === null) return null;
  try {
    const { buffer, bytesRead } = await opened.file.read(Buffer.alloc(max), 0, max, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return null;
  } finally {
    await opened.file.close();
  }
}

/** A regular file's whole text when it is at most `maxBytes`; null when larger, missing or not one. */
export async function readFileCapped(path: string, maxBytes: number): Promise<string | null> {
  const opened = await openRegularFile(path);
  if (opened === null) return null;
  try {
    return opened.size > maxBytes ? null : await opened.file.readFile('utf8');
  } catch {
    return null;
  } finally {
    await opened.file.close();
  }
}
