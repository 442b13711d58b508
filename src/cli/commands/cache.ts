import type { Command } from 'commander';
import type { Git } from '../../git/index.js';
import type { CacheEntry, ResolutionCache } from '../../resolve/cache/resolution-cache.js';
import { configRequest, globalOptions, printJson, printResult } from '../context.js';
import { shortOid } from '../../util/short-oid.js';

/** One line of `cache list`: key, who resolved it, in which run and file, and whether a check blamed it. */
function describe(entry: CacheEntry, blamed: boolean): string {
  const where = [
    entry.provenance.merge && `run ${entry.provenance.merge}`,
    entry.provenance.cell && `cell ${entry.provenance.cell}`,
    entry.provenance.file,
  ]
    .filter(Boolean)
    .join(', ');
  const blames = (entry.blamed ?? []).length + (entry.invalidated ? 1 : 0);
  const state = blamed
    ? 'BLAMED (not replayed)'
    : blames > 0
      ? `live (${blames} earlier answer${blames === 1 ? '' : 's'} blamed)`
      : 'live';
  const lines = entry.resolution.split('\n').length - (entry.resolution.endsWith('\n') ? 1 : 0);
  return `${entry.key.slice(0, 12)}  ${entry.rung.padEnd(5)} ${entry.by.padEnd(20)} ${state.padEnd(22)} ${entry.provenance.when.slice(0, 19)}  ${lines} line(s)${where ? `  ${where}` : ''}`;
}

/** The repository's resolution cache, for a cache command. */
async function open(cmd: Command): Promise<{ git: Git; store: ResolutionCache }> {
  const { configFor } = await import('../../workflow/config-for.js');
  const { ResolutionCache } = await import('../../resolve/cache/resolution-cache.js');
  const { git } = await configFor.run({
    ...configRequest(globalOptions(cmd)),
    runRequired: false,
    configRequired: false,
  });
  return { git, store: await ResolutionCache.forRepo(git) };
}

/** `splintercat cache list|clear`: the resolution cache of this repository (rerere for the ladder). */
export function registerCache(program: Command): Command {
  const cache = program
    .command('cache')
    .description(
      'list, clear, export or import the resolution cache (every earlier resolution, who made it, in which run)',
    );

  cache
    .command('list')
    .description(
      'every cached resolution: who resolved it (rule, model, person), in which run, and whether a failed check blamed it',
    )
    .option('--json', 'the entries as JSON on stdout')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { ResolutionCache } = await import('../../resolve/cache/resolution-cache.js');
      const { git, store } = await open(cmd);
      try {
        const entries = await store.list();
        if (opts.json) return printJson(entries);
        if (entries.length === 0) return printResult(`The resolution cache is empty (${store.dir}).`);
        printResult(
          [
            `${entries.length} cached resolution(s) in ${store.dir}:`,
            ...entries.map((e) => describe(e, ResolutionCache.isBlamedEntry(e))),
          ].join('\n'),
        );
      } finally {
        git.close();
      }
    });

  cache
    .command('clear')
    .description('forget cached resolutions: all of them, or only those a failed check blamed (--blamed)')
    .option('--blamed', 'only the entries whose resolution a failed check blamed')
    .action(async (opts: { blamed?: boolean }, cmd: Command) => {
      const { git, store } = await open(cmd);
      try {
        const removed = await store.clear({ blamedOnly: Boolean(opts.blamed) });
        printResult(`Removed ${removed} ${opts.blamed ? 'blamed ' : ''}cached resolution(s) from ${store.dir}.`);
      } finally {
        git.close();
      }
    });
  registerCacheSharing(cache);
  return cache;
}

/** `cache export|import`: the cache through refs/splintercat/cache, to share it with git push and fetch. */
function registerCacheSharing(cache: Command): void {
  cache
    .command('export')
    .description('write the cache to refs/splintercat/cache, for `git push origin refs/splintercat/cache`')
    .action(async (_opts: unknown, cmd: Command) => {
      const { exportCacheRef, CACHE_REF } = await import('../../resolve/cache/cache-ref.js');
      const { git, store } = await open(cmd);
      try {
        const commit = await exportCacheRef(git, store);
        printResult(
          commit
            ? `${CACHE_REF} is now ${shortOid(commit)}; share it with: git push origin ${CACHE_REF}`
            : `${CACHE_REF} already holds every cached resolution.`,
        );
      } finally {
        git.close();
      }
    });

  cache
    .command('import')
    .description('take in resolutions fetched into refs/splintercat/cache (merge does this when it starts)')
    .action(async (_opts: unknown, cmd: Command) => {
      const { importCacheRefs, CACHE_REF } = await import('../../resolve/cache/cache-ref.js');
      const { git, store } = await open(cmd);
      try {
        const changed = await importCacheRefs(git, store);
        printResult(`${changed} resolution(s) taken in from ${CACHE_REF} into ${store.dir}.`);
      } finally {
        git.close();
      }
    });
}
