import type { Git } from '../../git/index.js';
import { fetchRefs, listRemoteRefs, pushRefs } from '../../git/remote-refs.js';
import { CACHE_REF, exportCacheRef, importCacheRefs } from '../../resolve/cache/cache-ref.js';
import type { ResolutionCache } from '../../resolve/cache/resolution-cache.js';

/**
 * The resolution cache of a shared run's clones travels as `refs/splintercat/cache`, the ref `cache
 * export` writes and `merge` imports, so a team's cache is one mechanism whether pushed by hand or
 * by a shared run. Its entries are content-addressed files: the union of two caches loses nothing.
 */

/** Where this clone keeps the remote's cache ref (a remote-tracking ref: `importCacheRefs` reads it). */
function cacheTracking(remote: string): string {
  return `refs/remotes/${remote.replace(/[^A-Za-z0-9._-]/g, '_')}/splintercat/cache`;
}

/**
 * Take the remote's cache in (when it moved since last taken), then push the local cache when it
 * holds what the remote does not: a compare-and-swap on the value just read, so a cache another
 * clone pushed meanwhile is taken in by the next call, never overwritten. Returns the entries
 * taken in; null when the remote cannot be reached. `rejected` hears of each entry not taken in.
 */
export async function shareCache(
  git: Git,
  remote: string,
  cache: ResolutionCache,
  rejected?: (where: string, why: string) => void,
): Promise<number | null> {
  const listed = await listRemoteRefs(git, remote, [CACHE_REF]);
  if (listed === null) return null;
  const theirs = listed.get(CACHE_REF) ?? null;
  const tracking = cacheTracking(remote);
  let taken = 0;
  if (theirs !== null && theirs !== (await git.revParse(tracking))) {
    if (!(await fetchRefs(git, remote, [`+${CACHE_REF}:${tracking}`]))) return null;
    let refused = false;
    taken = await importCacheRefs(git, cache, (where, why) => {
      if (where === tracking || where.startsWith(`${tracking}:`)) refused = true;
      rejected?.(where, why);
    });
    // A tracking ref never keeps what was refused: the valid entries are in the local cache now,
    // and the export below, pushed over the remote's, carries them without the others.
    if (refused) await git.deleteRef(tracking);
  }
  await exportCacheRef(git, cache);
  const ours = await git.revParse(CACHE_REF);
  const behind =
    theirs !== null &&
    (await git.objectInfo(theirs))?.type === 'commit' &&
    (await git.isAncestor(ours ?? theirs, theirs));
  if (ours !== null && ours !== theirs && !behind) {
    const pushed = await pushRefs(git, remote, [{ ref: CACHE_REF, newOid: ours, expect: theirs }]);
    if (pushed.ok) await git.updateRef(tracking, ours);
  }
  return taken;
}
