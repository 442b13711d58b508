import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Run `fn` with a throwaway index file (as `GIT_INDEX_FILE`), so building a tree never touches a real index. */
export async function withTempIndex<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'splintercat-index-'));
  try {
    return await fn({ GIT_INDEX_FILE: join(dir, 'index') });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
