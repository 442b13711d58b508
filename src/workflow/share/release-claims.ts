import type { Git } from '../../git/index.js';
import { nullLogger } from '../../log/logger.js';
import type { RunStore } from '../../store/run-store.js';
import { RunShare } from './run-share.js';

/**
 * Release every claim this clone holds on run `name` (an abandoned run's conflicts are free for
 * the others at once, not after the lease). Returns the conflicts released; none when the run is
 * not shared or the remote cannot be reached (the leases then run out as after a crash).
 */
export async function releaseOwnClaims(git: Git, store: RunStore, name: string, lease: number): Promise<string[]> {
  const share = await RunShare.open(git, store, name, lease, nullLogger);
  if (!share) return [];
  const released: string[] = [];
  for (const claim of (await share.claims.list())?.values() ?? [])
    if (claim.machine === share.settings.machine && (await share.claims.release(claim))) released.push(claim.conflict);
  return released.sort();
}
