import { open } from 'node:fs/promises';

/** Where a generator's header is looked for: a file's first bytes, never the whole of a large lockfile. */
const HEAD_BYTES = 4_096;

/** The first `max` bytes of a file as text; null when it is missing or is not a readable file. */
export async function fileHead(path: string, max = HEAD_BYTES): Promise<string | null> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return null;
  }
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(max), 0, max, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return null;
  } finally {
    await file.close();
  }
}
