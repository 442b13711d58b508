import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../store/json-file.js';
import type { RunState } from '../store/run-state.js';
import type { CommitRef } from './model.js';
import type { GridSnapshot } from './snapshot.js';

/**
 * The grid of a finished run, rebuilt from history once and kept beside its state
 * (`grid-history.json`): after `finish` removed the refs nothing changes it, and rebuilding it
 * costs five git processes that every `status` would otherwise pay again. The file
 * is a cache: one that does not match the run (another final commit, other tips, another size)
 * or does not read as a grid is ignored and rebuilt.
 */
export const GRID_CACHE_FILE = 'grid-history.json';

const CACHE_VERSION = 1;

/**
 * A grid as the file stores it: the sides keep the engine's numbers, `tip1` and `axis1` the fork's,
 * `tip2` and `axis2` upstream's.
 */
type StoredGrid = Omit<GridSnapshot, 'forkTip' | 'upstreamTip' | 'forkAxis' | 'upstreamAxis'> & {
  tip1: string;
  tip2: string;
  axis1: CommitRef[];
  axis2: CommitRef[];
};

interface CachedGrid {
  version: number;
  key: string;
  grid: StoredGrid;
}

/** A stored grid in today's names. */
function withStoredTips({ tip1, tip2, axis1, axis2, ...grid }: StoredGrid): GridSnapshot {
  return { ...grid, forkTip: tip1, upstreamTip: tip2, forkAxis: axis1, upstreamAxis: axis2 };
}

/** A grid as the file stores it. */
function toStoredTips({ forkTip, upstreamTip, forkAxis, upstreamAxis, ...grid }: GridSnapshot): StoredGrid {
  return { ...grid, tip1: forkTip, tip2: upstreamTip, axis1: forkAxis, axis2: upstreamAxis };
}

/** What a cached grid must have been rebuilt for; null when the run is not finished (its grid may still change). */
export function gridCacheKey(state: RunState): string | null {
  if (state.status !== 'done' || state.finalCommit === null || !state.grid?.size) return null;
  const { i1: i, i2: j } = state.grid.size;
  return [state.name, state.finalCommit, state.fork.originalOid, state.upstream.oid, i, j].join(' ');
}

/** The cached grid of the run, or null when there is none that matches `key`. */
export function readCachedGrid(path: string, key: string): GridSnapshot | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  const cached = value as Partial<CachedGrid> | null;
  if (cached?.version !== CACHE_VERSION || cached.key !== key || !isGrid(cached.grid)) return null;
  return withStoredTips(cached.grid);
}

/** Keep the grid for the next command; a repository the user cannot write to just goes without. */
export function writeCachedGrid(path: string, key: string, grid: GridSnapshot): void {
  const cached: CachedGrid = { version: CACHE_VERSION, key, grid: toStoredTips(grid) };
  try {
    writeFileAtomic(path, `${JSON.stringify(cached)}\n`);
  } catch {
    // a cache: the next command rebuilds it
  }
}

function isGrid(g: unknown): g is StoredGrid {
  if (typeof g !== 'object' || g === null) return false;
  const x = g as Record<string, unknown>;
  const refs = (a: unknown, n: unknown): boolean =>
    Array.isArray(a) &&
    a.length === n &&
    a.every(
      (r) =>
        typeof r === 'object' &&
        r !== null &&
        typeof (r as Record<string, unknown>).oid === 'string' &&
        typeof (r as Record<string, unknown>).subject === 'string',
    );
  return (
    Number.isInteger(x.len1) &&
    Number.isInteger(x.len2) &&
    typeof x.tip1 === 'string' &&
    typeof x.tip2 === 'string' &&
    typeof x.letters === 'string' &&
    x.letters.length === (x.len1 as number) * (x.len2 as number) &&
    refs(x.axis1, x.len1) &&
    refs(x.axis2, x.len2) &&
    x.source === 'history'
  );
}
