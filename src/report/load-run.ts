import { mapPool } from '../util/pool.js';
import { dirname, isAbsolute, join } from 'node:path';
import { readRegular } from '../util/safe-read.js';
import { storedCheckLogDir } from '../config/old-keys.js';
import type { Git } from '../git/index.js';
import { IncrementalMerge, listImerges } from '../imerge/index.js';
import type { RunStore } from '../store/index.js';
import { loadRunState, openRunJournal } from '../store/run-persistence.js';
import { assertFinalCommit } from '../store/final-commit.js';
import type { RunState } from '../store/run-state.js';
import { allCheckRecords } from './check-records.js';
import { batchedConflictMerge, conflictHunks, resolutionDiff, resolutionDiffs, type DiffPair } from './conflict-git.js';
import {
  cachedFor,
  CONFLICT_DETAILS_FILE,
  readConflictDetails,
  writeConflictDetails,
  type CachedDetails,
} from './conflict-details-cache.js';
import { GRID_CACHE_FILE } from './grid-history-cache.js';
import { readGridSnapshot } from './grid-source.js';
import type { ConflictGitDetails, RunSnapshot } from './snapshot.js';

/** Lookups that never change once made (by resolution commit, by finished log), kept across reloads by the UI. */
export interface SnapshotCache {
  conflicts: Map<string, ConflictGitDetails>;
  logTails: Map<string, string>;
  /** The run's `conflict-details.json`, read once per cache (null: not read yet). */
  stored: Map<string, CachedDetails> | null;
}

export function newSnapshotCache(): SnapshotCache {
  return { conflicts: new Map(), logTails: new Map(), stored: null };
}

export interface LoadRunOptions {
  /** Look up conflict hunks and diffs and read the end of each check log (default true; `status` skips them). */
  details?: boolean;
  cache?: SnapshotCache;
  /** The run's state as the caller already read it (not read and validated again). */
  state?: RunState;
}

const TAIL_BYTES = 4096;
const TAIL_LINES = 20;

/** A check log's absolute path (logs are recorded absolute; a relative one is under the workdir). */
export function checkLogPath(state: RunState, logFile: string): string {
  return isAbsolute(logFile) ? logFile : join(state.workdir, logFile);
}

/** The directory the run's check logs are written to: a log is read back only from there. */
export function checkLogDir(state: RunState, logPath: string): string {
  const dir = storedCheckLogDir(state.config?.values);
  return typeof dir === 'string' && isAbsolute(dir) ? dir : dirname(logPath);
}

/** The last lines of a log file, or null when it cannot be read (safely: see readRegular). */
export function readLogTail(path: string, within: string = dirname(path)): string | null {
  const read = readRegular(path, { within, maxBytes: TAIL_BYTES, singleLink: true });
  if (!read.ok) return null;
  let text = read.bytes.toString('utf8');
  if (read.truncated) text = text.slice(text.indexOf('\n') + 1);
  return text.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
}

function gitFailed(error: unknown): ConflictGitDetails {
  return {
    hunks: {},
    diff: null,
    diffTruncated: false,
    note: `git could not show it: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
  };
}

/**
 * Everything a report of run `name` is built from: state.json, the journal, the grid (refs or
 * history) and, with `details`, each conflict's hunks and resolution diff and each check log's
 * end. Null when the run has no state.
 */
export async function loadRunSnapshot(
  git: Git,
  store: RunStore,
  name: string,
  options: LoadRunOptions = {},
): Promise<RunSnapshot | null> {
  const paths = store.paths(name);
  const state = options.state ?? loadRunState(paths);
  if (state === null) return null;
  await assertFinalCommit(git, state, paths.state);
  const events = openRunJournal(paths).read().entries;
  const live = store.lockStatus(name).state === 'held';
  const grid = await readGridSnapshot(git, state, join(paths.dir, GRID_CACHE_FILE));
  const snapshot: RunSnapshot = { state, events, grid, conflicts: {}, logTails: {}, live };
  if (options.details === false) return snapshot;
  const cache = options.cache ?? newSnapshotCache();
  const detailsFile = join(paths.dir, CONFLICT_DETAILS_FILE);
  const stored = (cache.stored ??= readConflictDetails(detailsFile));
  const im = (await listImerges(git)).includes(name) ? await IncrementalMerge.load(git, name).catch(() => null) : null;
  const batch = batchedConflictMerge(git, 2);
  const fresh: Array<{ c: (typeof state.conflicts)[number]; files: string[]; pair: DiffPair | null }> = [];
  // Several conflicts at a time: each waits mostly on git (the batched merge-tree, the object reader).
  await mapPool(state.conflicts, 8, async (c) => {
    const key = c.resolutionCommit;
    const files = c.files.map((f) => f.path);
    const cached = key === null ? undefined : (cache.conflicts.get(key) ?? cachedFor(stored, key, files));
    if (cached) {
      snapshot.conflicts[c.id] = cached;
      return;
    }
    const above = im && c.cell.i2 > 0 ? im.cellCommit(c.cell.i1, c.cell.i2 - 1) : null;
    const left = im && c.cell.i1 > 0 ? im.cellCommit(c.cell.i1 - 1, c.cell.i2) : null;
    const { details, pair } = await conflictHunks(git, c, above && left ? { above, left } : null, batch.merge).catch(
      (error: unknown) => ({ details: gitFailed(error), pair: null }),
    );
    snapshot.conflicts[c.id] = details;
    fresh.push({ c, files, pair });
  }).finally(batch.close);
  // Every resolution's diff in one process; what it cannot answer, one process each.
  const withPair = fresh.filter((f): f is (typeof fresh)[number] & { pair: DiffPair } => f.pair !== null);
  const diffs = await resolutionDiffs(
    git,
    withPair.map((f) => ({ pair: f.pair, paths: f.files })),
  ).catch(() => withPair.map(() => null));
  await mapPool(withPair, 8, async (f, k) => {
    const part =
      diffs[k] ??
      (await resolutionDiff(git, f.pair, f.files).catch((error: unknown) => ({
        diff: null,
        diffTruncated: false,
        note: gitFailed(error).note,
      })));
    snapshot.conflicts[f.c.id] = { ...(snapshot.conflicts[f.c.id] as ConflictGitDetails), ...part };
  });
  let added = 0;
  for (const { c, files } of fresh) {
    const details = snapshot.conflicts[c.id] as ConflictGitDetails;
    if (c.resolutionCommit === null || details.note !== null) continue;
    cache.conflicts.set(c.resolutionCommit, details);
    stored.set(c.resolutionCommit, { paths: files, details });
    added++;
  }
  if (added > 0) {
    // Only the run's current resolutions: one a retry replaced is not kept.
    const current = new Set(state.conflicts.map((c) => c.resolutionCommit));
    for (const commit of stored.keys()) if (!current.has(commit)) stored.delete(commit);
    writeConflictDetails(detailsFile, stored);
  }
  allCheckRecords(state, events).forEach((check, index) => {
    if (check.summary !== null) return;
    const path = checkLogPath(state, check.logFile);
    const tail = cache.logTails.get(path) ?? readLogTail(path, checkLogDir(state, path));
    if (tail === null) return;
    cache.logTails.set(path, tail);
    snapshot.logTails[index] = tail;
  });
  return snapshot;
}
