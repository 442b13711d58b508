import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import type { RunStore } from '../../store/run-store.js';

/** How a run is shared: the remote its records, engine refs and claims go to, and this machine's name there. */
export interface ShareSettings {
  remote: string;
  machine: string;
}

function sharePath(store: RunStore, name: string): string {
  return join(store.paths(name).dir, 'share.json');
}

/** The run's share settings, or null when it is not shared. */
export function readShare(store: RunStore, name: string): ShareSettings | null {
  const path = sharePath(store, name);
  if (!existsSync(path)) return null;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<ShareSettings>;
    return typeof v.remote === 'string' && typeof v.machine === 'string'
      ? { remote: v.remote, machine: v.machine }
      : null;
  } catch {
    return null;
  }
}

export function writeShare(store: RunStore, name: string, settings: ShareSettings): void {
  store.ensure(name);
  writeFileSync(sharePath(store, name), `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * This clone's name among the machines of a shared run: the host and a digest of the clone's git
 * directory, so two clones on one host (two people on one server) are two machines.
 */
export async function machineName(git: Git): Promise<string> {
  const dir = await git.gitDir(true);
  const digest = createHash('sha256').update(dir).digest('hex').slice(0, 8);
  return `${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${digest}`;
}

/** The person working in this clone, as git knows them (user.name, user.email). */
export async function personOf(git: Git): Promise<{ name: string; email: string }> {
  const [name, email] = await Promise.all([git.configGet('user.name'), git.configGet('user.email')]);
  return { name: name ?? '', email: email ?? '' };
}
