import type { Git } from '../git/index.js';
import { OBJECT_LIMITS } from '../git/object-limits.js';
import { recordListing, readRecord, writeRecordsCommit } from './sync/record-tree.js';
import { snapshotProblem } from './sync/snapshot-problem.js';

/** Something a shared run keeps from its remote that is not usable, and how doctor drops it. */
export interface ShareProblem {
  severity: 'error';
  message: string;
  repair: () => Promise<string>;
}

/**
 * The refs a shared run keeps of what came from its remote, checked as a pull reads them: the
 * run's records commit (a commit whose every entry is a valid record), and the tracking refs
 * under `refs/splintercat-remotes/` (records seen, snapshots joined from, claims, the cache's
 * remote-tracking ref), each a commit or blob of its kind within its size limit. The records
 * commit is repaired by a commit of its valid records on top of it; a tracking ref, by removing
 * it (the next pull reads the remote again and skips what it must).
 */
export async function findShareProblems(name: string, git: Git): Promise<ShareProblem[]> {
  const problems: ShareProblem[] = [];
  const records = `refs/splintercat/${name}/records`;
  const own = await git.revParse(records);
  if (own !== null) {
    const bad = await badRecords(git, own, records);
    if (bad.length > 0) problems.push(rewriteRecords(git, records, own, bad));
  }
  for (const { ref, oid } of await git.forEachRef('refs/splintercat-remotes/')) {
    const why = await trackingProblem(git, name, ref, oid);
    if (why === null) continue;
    problems.push({
      severity: 'error',
      message: `${why} (kept from the remote)`,
      repair: async () => {
        await git.deleteRef(ref, oid);
        return `removed ${ref}: the next pull reads the remote again and skips what is not usable`;
      },
    });
  }
  for (const { ref, oid } of await git.forEachRef('refs/remotes/')) {
    if (!ref.endsWith('/splintercat/cache')) continue;
    const why = await cacheProblem(git, ref, oid);
    if (why !== null)
      problems.push({
        severity: 'error',
        message: `${why} (kept from the remote)`,
        repair: async () => {
          await git.deleteRef(ref, oid);
          return `removed ${ref}: the next share reads the remote's cache again and skips what is not usable`;
        },
      });
  }
  return problems;
}

/** The entries of records commit `commit` (read from `ref`) that are not valid records, one line each. */
async function badRecords(git: Git, commit: string, ref: string): Promise<string[]> {
  const listing = await recordListing(git, commit);
  if (!listing.ok) return [`${ref}: ${listing.why}`];
  const bad = listing.refused.map((r) => `${ref}:${r.path}: ${r.why}`);
  for (const [path, blob] of listing.entries) {
    const read = await readRecord(git, blob, path);
    if (!read.ok) bad.push(`${ref}:${path}: ${read.why}`);
  }
  return bad;
}

function rewriteRecords(git: Git, ref: string, old: string, bad: string[]): ShareProblem {
  return {
    severity: 'error',
    message: `${ref} holds ${bad.length} object(s) that are not records: ${bad.slice(0, 5).join('; ')}`,
    repair: async () => {
      const listing = await recordListing(git, old);
      const kept = new Map<string, string>();
      if (listing.ok)
        for (const [path, blob] of listing.entries) if ((await readRecord(git, blob, path)).ok) kept.set(path, blob);
      const commit = await writeRecordsCommit(
        git,
        kept,
        listing.ok ? [old] : [],
        'splintercat doctor: records without the objects that are not records',
      );
      await git.updateRef(ref, commit, old);
      return `rewrote ${ref} with its ${kept.size} valid record(s), without the ${bad.length} others`;
    },
  };
}

/** Why a tracking ref of run `name` holds what a pull would not use, or null (refs of other runs, and fine ones). */
async function trackingProblem(git: Git, name: string, ref: string, oid: string): Promise<string | null> {
  const rest = ref.slice('refs/splintercat-remotes/'.length);
  const info = await git.objectInfo(oid);
  const wrong = (want: string): string | null =>
    info?.type === want ? null : `${ref}: a ${info?.type ?? 'missing object'}, not a ${want}`;
  if (rest.startsWith(`claims/${name}/`)) {
    const type = wrong('blob');
    if (type !== null || (info?.size ?? 0) <= OBJECT_LIMITS.claim) return type;
    return `${ref}: a claim over the limit of ${OBJECT_LIMITS.claim} bytes`;
  }
  if (rest.startsWith(`snapshots/${name}/`)) {
    const why = await snapshotProblem(git, oid);
    return why === null ? null : `${ref}: ${why}`;
  }
  if (rest.endsWith(`/${name}/records`) && rest.split('/').length === 3) {
    const bad = await badRecords(git, oid, ref);
    return bad.length > 0 ? bad.slice(0, 5).join('; ') : null;
  }
  return null;
}

/** Why the cache's remote-tracking ref holds what an import would not use, or null. */
async function cacheProblem(git: Git, ref: string, oid: string): Promise<string | null> {
  const info = await git.objectInfo(oid);
  if (info?.type !== 'commit') return `${ref}: a ${info?.type ?? 'missing object'}, not a commit`;
  const format = '--format=%(objectmode) %(objecttype) %(objectsize)%x09%(path)';
  const { stdout } = await git.query(['ls-tree', '-r', '-z', format, oid]);
  for (const line of stdout.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, size] = line.slice(0, tab).split(' ');
    const path = JSON.stringify(line.slice(tab + 1)).slice(1, -1);
    if (mode !== '100644' || type !== 'blob') return `${ref}:${path}: not a cache entry`;
    if (Number(size) > OBJECT_LIMITS.cacheEntry) return `${ref}:${path}: over the limit of a cache entry`;
  }
  return null;
}
