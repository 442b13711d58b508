import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * Remove a directory tree, however deep: Node's `rmSync` names each entry by its full path, which
 * past PATH_MAX (4,096 bytes on Linux: a 4,053-byte path inside a worktree's directory) fails with
 * ENAMETOOLONG; `rm -rf` walks it relative to each directory. Missing is removed.
 */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENAMETOOLONG' && code !== 'ENOTEMPTY' && code !== 'ELOOP') throw error;
  }
  const rm = spawnSync('rm', ['-rf', '--', path], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (rm.status !== 0)
    throw new Error(`rm -rf ${path} failed: ${rm.stderr.trim() || `exit ${rm.status ?? rm.signal}`}`);
}
