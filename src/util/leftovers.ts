import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** True while process `pid` exists (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Delete the entries of `dir` left by processes killed before they could clean up: `ownerOf`
 * names the process an entry belongs to (null: not such an entry). Entries of live processes, and
 * this one's, stay; an entry that cannot be deleted (another user's) is left where it is.
 */
export function removeLeftovers(dir: string, ownerOf: (name: string) => number | null): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = ownerOf(name);
    if (pid === null || !Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    try {
      rmSync(join(dir, name), { recursive: true, force: true });
    } catch {
      // not ours to delete
    }
  }
}
