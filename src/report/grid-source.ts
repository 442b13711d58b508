import type { Git } from '../git/index.js';
import { diagramCodes, getBoundaries, Grid, IncrementalMerge, listImerges } from '../imerge/index.js';
import type { RunState } from '../store/run-state.js';
import { sideTips } from '../workflow/imerge-adapter.js';
import { gridCacheKey, readCachedGrid, writeCachedGrid } from './grid-history-cache.js';
import {
  MERGE_AUTOMATIC,
  MERGE_BLOCKED,
  MERGE_MANUAL,
  MERGE_UNBLOCKED,
  MERGE_UNKNOWN,
  mergeLetter,
  nodeLetter,
} from './grid-codes.js';
import type { CommitRef } from './model.js';
import type { GridSnapshot } from './snapshot.js';

/** Subjects of the given commits, in one git call (unknown ones get an empty subject). */
async function commitRefs(git: Git, oids: readonly string[]): Promise<CommitRef[]> {
  if (oids.length === 0) return [];
  const out = await git.run(['log', '--no-walk=unsorted', '--stdin', '--format=%H%x00%s'], {
    input: `${oids.join('\n')}\n`,
    okExitCodes: [0, 128],
  });
  const subjects = new Map<string, string>();
  for (const line of out.stdout.split('\n')) {
    const [oid, subject] = line.split('\0');
    if (oid && subject !== undefined) subjects.set(oid, subject);
  }
  return oids.map((oid) => ({ oid, subject: subjects.get(oid) ?? '' }));
}

/** Letters of a grid, rows of len1 (j outer); git-imerge's frontier view when it can be mapped. */
function gridLetters(grid: Grid): string {
  let codes: number[][] | null = null;
  try {
    codes = diagramCodes(grid);
  } catch {
    codes = null; // a grid git-imerge could not map either: show the cells without the frontier
  }
  const out = new Array<string>(grid.len1 * grid.len2);
  for (let j = 0; j < grid.len2; j++) {
    for (let i = 0; i < grid.len1; i++) {
      const node = codes?.[i]?.[j];
      if (node !== undefined) {
        out[j * grid.len1 + i] = nodeLetter(node);
        continue;
      }
      const c = grid.cell(i, j);
      const merge =
        c.oid === null
          ? c.blocked
            ? MERGE_BLOCKED
            : MERGE_UNKNOWN
          : c.blocked
            ? MERGE_UNBLOCKED
            : c.manual
              ? MERGE_MANUAL
              : MERGE_AUTOMATIC;
      out[j * grid.len1 + i] = mergeLetter(merge);
    }
  }
  return out.join('');
}

async function axes(git: Git, grid: Grid): Promise<{ forkAxis: CommitRef[]; upstreamAxis: CommitRef[] }> {
  const o1 = Array.from({ length: grid.len1 }, (_, i) => grid.cell(i, 0).oid ?? '');
  const o2 = Array.from({ length: grid.len2 }, (_, j) => grid.cell(0, j).oid ?? '');
  const refs = await commitRefs(git, [...new Set([...o1, ...o2].filter(Boolean))]);
  const byOid = new Map(refs.map((r) => [r.oid, r]));
  const ref = (oid: string): CommitRef => byOid.get(oid) ?? { oid, subject: '' };
  return { forkAxis: o1.map(ref), upstreamAxis: o2.map(ref) };
}

/**
 * The run's grid: from its refs while the merge exists (running, stopped, handed to the person),
 * else rebuilt from the merge commits still in the object store after `finish` removed the
 * refs (every recorded cell reachable from the resolutions and checked cells). Null when
 * neither works (no grid yet, objects pruned). A finished run's rebuilt grid is kept in
 * `cacheFile` (see grid-history-cache.ts) and read from there by the next command.
 */
export async function readGridSnapshot(git: Git, state: RunState, cacheFile?: string): Promise<GridSnapshot | null> {
  if ((await listImerges(git)).includes(state.name)) {
    try {
      const im = await IncrementalMerge.load(git, state.name);
      return {
        len1: im.grid.len1,
        len2: im.grid.len2,
        ...sideTips(im),
        letters: gridLetters(im.grid),
        ...(await axes(git, im.grid)),
        source: 'refs',
      };
    } catch {
      // refs being rewritten or damaged: fall back to history
    }
  }
  const key = cacheFile === undefined ? null : gridCacheKey(state);
  const cached = key === null ? null : readCachedGrid(cacheFile as string, key);
  if (cached !== null) return cached;
  const rebuilt = await rebuildFromHistory(git, state).catch(() => null);
  if (rebuilt !== null && key !== null) writeCachedGrid(cacheFile as string, key, rebuilt);
  return rebuilt;
}

const mergeSubject = /^imerge '(.+)': (automatic|manual) merge (\d+)-(\d+)$/;

async function rebuildFromHistory(git: Git, state: RunState): Promise<GridSnapshot | null> {
  const size = state.grid?.size;
  if (!size) return null;
  const forkTip = state.fork.originalOid;
  const upstreamTip = state.upstream.oid;
  let bounds = null;
  for (const firstParent of [true, false]) {
    const b = await getBoundaries(git, forkTip, upstreamTip, firstParent).catch(() => null);
    if (b && b.commits1.length === size.i1 && b.commits2.length === size.i2) {
      bounds = b;
      break;
    }
  }
  if (!bounds) return null;
  const grid = new Grid(size.i1 + 1, size.i2 + 1);
  const edge = (i: number, j: number, oid: string): void => {
    Object.assign(grid.cell(i, j), { oid, manual: true });
  };
  edge(0, 0, bounds.mergeBase);
  bounds.commits1.forEach((c, k) => edge(k + 1, 0, c));
  bounds.commits2.forEach((c, k) => edge(0, k + 1, c));

  const starts = [
    ...state.conflicts.map((c) => c.resolutionCommit),
    ...state.checks.filter((c) => c.target === 'cell').map((c) => c.commit),
  ].filter((c): c is string => c !== null);
  const present = await existing(git, [...new Set(starts)]);
  if (present.length > 0) {
    const log = await git.text(['log', '--format=%H%x00%s', ...present, `^${forkTip}`, `^${upstreamTip}`]);
    for (const line of log.split('\n')) {
      const [oid, subject] = line.split('\0');
      const m = mergeSubject.exec(subject ?? '');
      if (!oid || !m || m[1] !== state.name) continue;
      const i = Number(m[3]);
      const j = Number(m[4]);
      if (i < 1 || j < 1 || i >= grid.len1 || j >= grid.len2) continue;
      const cell = grid.cell(i, j);
      // Newest first: keep the first commit seen for a cell; a manual merge wins over an automatic one.
      if (cell.oid === null || (m[2] === 'manual' && !cell.manual))
        Object.assign(cell, { oid, manual: m[2] === 'manual' });
    }
  }
  for (const c of state.conflicts) {
    if (c.resolutionCommit === null || c.cell.i1 >= grid.len1 || c.cell.i2 >= grid.len2) continue;
    Object.assign(grid.cell(c.cell.i1, c.cell.i2), { oid: c.resolutionCommit, manual: true });
  }
  for (const b of state.grid?.blockers ?? [])
    if (b.i1 < grid.len1 && b.i2 < grid.len2) grid.cell(b.i1, b.i2).blocked = true;
  return {
    len1: grid.len1,
    len2: grid.len2,
    forkTip: state.fork.branch,
    upstreamTip: state.upstream.ref,
    letters: gridLetters(grid),
    ...(await axes(git, grid)),
    source: 'history',
  };
}

/** The commits among `oids` still in the object store (unreachable ones may have been pruned). */
async function existing(git: Git, oids: string[]): Promise<string[]> {
  // Through the long-lived object checker: no process of its own, and no content read.
  const objects = await Promise.all(oids.map((oid) => git.objectInfo(oid)));
  return objects.filter((o) => o?.type === 'commit').map((o) => (o as { oid: string }).oid);
}
