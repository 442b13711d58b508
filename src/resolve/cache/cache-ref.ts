import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sizeText, type Git } from '../../git/index.js';
import { OBJECT_LIMITS } from '../../git/object-limits.js';
import type { ResolutionCache } from './resolution-cache.js';

/**
 * The resolution cache as git objects, so `git push` and `git fetch` carry it to a team's other
 * clones and CI runners: a commit whose tree holds one blob per entry (`ab/KEY.json`, as in the
 * cache directory), at `refs/splintercat/cache`. The cache directory stays the working copy; the
 * ref is how it travels.
 */
export const CACHE_REF = 'refs/splintercat/cache';

/** The cache refs a clone may hold: its own, and any fetched as remote-tracking refs. */
async function cacheRefs(git: Git): Promise<Array<{ ref: string; oid: string }>> {
  const own = await git.forEachRef(CACHE_REF);
  const fetched = (await git.forEachRef('refs/remotes/')).filter((r) => r.ref.endsWith('/splintercat/cache'));
  return [...own, ...fetched];
}

/**
 * Take every entry of the cache refs into the local cache (`absorb`: a local answer stays, blames
 * join). Returns how many entries changed the local cache. A cache ref comes from the team's
 * remote: a ref that is not a commit, an entry that is not a file at `II/KEY.json`, one over
 * OBJECT_LIMITS.cacheEntry (refused by its size, never read) or one whose content is not an entry
 * of that key is skipped and passed to `rejected` (WHERE, WHY).
 */
export async function importCacheRefs(
  git: Git,
  cache: ResolutionCache,
  rejected: (where: string, why: string) => void = () => undefined,
): Promise<number> {
  let changed = 0;
  for (const { ref, oid } of await cacheRefs(git)) {
    const info = await git.objectInfo(oid);
    if (info?.type !== 'commit') {
      rejected(ref, `a ${info?.type ?? 'missing object'}, not a commit`);
      continue;
    }
    for (const entry of await cacheEntries(git, oid)) {
      const where = `${ref}:${entry.path}`;
      if (entry.why !== null) {
        rejected(where, entry.why);
        continue;
      }
      const read = await readEntry(git, entry.oid);
      const key = /([0-9a-f]{64})\.json$/.exec(entry.path)?.[1];
      if (!read.ok) rejected(where, read.why);
      else if ((read.value as { key?: unknown } | null)?.key !== key) rejected(where, 'not a cache entry of its key');
      else if (await cache.absorb(read.value)) changed++;
    }
  }
  return changed;
}

/** The files of a cache commit, each with why it is not an entry (null when it may be one). */
async function cacheEntries(
  git: Git,
  commit: string,
): Promise<Array<{ path: string; oid: string; why: string | null }>> {
  const format = '--format=%(objectmode) %(objecttype) %(objectname) %(objectsize)%x09%(path)';
  const listed = await git.query(['ls-tree', '-r', '-z', format, commit], { okExitCodes: [0, 128] });
  const out: Array<{ path: string; oid: string; why: string | null }> = [];
  for (const line of listed.stdout.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, oid, size] = line.slice(0, tab).split(' ') as [string, string, string, string];
    const path = line.slice(tab + 1);
    const why =
      mode !== '100644' || type !== 'blob' || !/^[0-9a-f]{2}\/[0-9a-f]{64}\.json$/.test(path)
        ? 'not a cache entry'
        : Number(size) > OBJECT_LIMITS.cacheEntry
          ? `${sizeText(Number(size))}, over the limit of ${sizeText(OBJECT_LIMITS.cacheEntry)}`
          : null;
    out.push({ path: JSON.stringify(path).slice(1, -1), oid, why });
    if (out.length >= OBJECT_LIMITS.treeEntries) break;
  }
  return out;
}

/** An entry's JSON, read within its size limit, or why not. */
async function readEntry(git: Git, oid: string): Promise<{ ok: true; value: unknown } | { ok: false; why: string }> {
  const read = await git.readBlobCapped(oid, OBJECT_LIMITS.cacheEntry);
  if (!read.ok) return { ok: false, why: read.reason };
  try {
    return { ok: true, value: JSON.parse(read.text) as unknown };
  } catch {
    return { ok: false, why: 'not JSON' };
  }
}

/**
 * Write the local cache to `refs/splintercat/cache`: a new commit whose parents are the cache refs
 * this clone holds (so pushing it is a fast-forward of what was fetched), unless the tree is
 * already there. Returns the commit, or null when nothing changed.
 */
export async function exportCacheRef(git: Git, cache: ResolutionCache): Promise<string | null> {
  const entries = await cache.list();
  const refs = await cacheRefs(git);
  const dir = await mkdtemp(join(tmpdir(), 'splintercat-cache-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    const paths = entries.map((e) => cache.fileOf(e.key));
    const oids =
      paths.length === 0
        ? []
        : (await git.queryText(['hash-object', '-w', '--stdin-paths'], { input: `${paths.join('\n')}\n` })).split('\n');
    const info = entries.map((e, i) => `100644 ${oids[i]}\t${e.key.slice(0, 2)}/${e.key}.json`).join('\n');
    if (info !== '') await git.query(['update-index', '--add', '--index-info'], { input: `${info}\n`, env });
    const tree = await git.queryText(['write-tree'], { env });
    const own = refs.find((r) => r.ref === CACHE_REF);
    if (own && (await git.queryText(['rev-parse', `${own.oid}^{tree}`])) === tree) return null;
    const parents = [...new Set(refs.map((r) => r.oid))];
    const commit = await git.queryText(
      [
        'commit-tree',
        tree,
        ...parents.flatMap((p) => ['-p', p]),
        '-m',
        `splintercat: resolution cache, ${entries.length} entries`,
      ],
      {
        env: {
          GIT_AUTHOR_NAME: 'splintercat',
          GIT_AUTHOR_EMAIL: 'splintercat@localhost',
          GIT_COMMITTER_NAME: 'splintercat',
          GIT_COMMITTER_EMAIL: 'splintercat@localhost',
        },
      },
    );
    await git.updateRef(CACHE_REF, commit, own?.oid ?? null, 'splintercat: export the resolution cache');
    return commit;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
