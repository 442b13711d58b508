import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
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
 * join). Returns how many entries changed the local cache.
 */
export async function importCacheRefs(git: Git, cache: ResolutionCache): Promise<number> {
  let changed = 0;
  for (const { oid } of await cacheRefs(git)) {
    const listed = await git.query(['ls-tree', '-r', '-z', oid], { okExitCodes: [0, 128] });
    for (const line of listed.stdout.split('\0')) {
      const m = /^100644 blob ([0-9a-f]+)\t[0-9a-f]{2}\/[0-9a-f]{64}\.json$/.exec(line);
      if (!m) continue;
      const blob = await git.readObject(m[1] as string);
      if (blob === null) continue;
      let value: unknown;
      try {
        value = JSON.parse(blob.content.toString('utf8'));
      } catch {
        continue;
      }
      if (await cache.absorb(value)) changed++;
    }
  }
  return changed;
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
