import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../store/json-file.js';
import { readRegular } from '../util/safe-read.js';
import { DIFF_LIMIT, HUNK_SIDE_LIMIT, HUNKS_PER_FILE } from './conflict-git.js';
import type { ConflictGitDetails } from './snapshot.js';

/**
 * Each resolved conflict's git details (its conflicted hunks and the diff to its resolution),
 * kept beside the run's state (`conflict-details.json`) by resolution commit: a commit's
 * parents and tree never change, so the merge-tree and diff a report redoes for each conflict
 * are done once. The file is this clone's own cache, never from a remote; it is bounded (a
 * larger one is not read, entries past the bound are not written) and validated on read, and
 * one that does not validate is ignored and written again.
 */
export const CONFLICT_DETAILS_FILE = 'conflict-details.json';

const VERSION = 1;
/** The file's size bound: past it the file is not read, and a write keeps the entries that fit. */
const CONFLICT_DETAILS_MAX_BYTES = 16_000_000;
const MAX_ENTRIES = 20_000;
const MAX_PATHS = 10_000;
/** Room for the note `clip` appends to a side it cut short. */
const SIDE_MAX = HUNK_SIDE_LIMIT + 64;

const hunkSchema = z.strictObject({
  index: z.number().int().min(0),
  ours: z.string().max(SIDE_MAX),
  base: z.string().max(SIDE_MAX).nullable(),
  theirs: z.string().max(SIDE_MAX),
  labels: z.strictObject({
    ours: z.string().max(1000).optional(),
    base: z.string().max(1000).optional(),
    theirs: z.string().max(1000).optional(),
  }),
});

const entrySchema = z.strictObject({
  /** The conflict's files, sorted: details of another set of files are not this conflict's. */
  paths: z.array(z.string().max(4096)).max(MAX_PATHS),
  hunks: z.record(z.string().max(4096), z.array(hunkSchema).max(HUNKS_PER_FILE)),
  diff: z.string().max(DIFF_LIMIT).nullable(),
  diffTruncated: z.boolean(),
});

const fileSchema = z.strictObject({
  version: z.literal(VERSION),
  entries: z.record(z.string().regex(/^[0-9a-f]{40,64}$/), entrySchema),
});

type Entry = z.infer<typeof entrySchema>;

/** A conflict's details as the file keeps them: for its resolution commit and its files. */
export interface CachedDetails {
  paths: string[];
  details: ConflictGitDetails;
}

/** The file's entries by resolution commit; empty when there is none, or it is too large or not valid. */
export function readConflictDetails(path: string): Map<string, CachedDetails> {
  const out = new Map<string, CachedDetails>();
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return out;
  }
  if (size > CONFLICT_DETAILS_MAX_BYTES) return out;
  const read = readRegular(path, { within: dirname(path), maxBytes: CONFLICT_DETAILS_MAX_BYTES, singleLink: true });
  if (!read.ok || read.truncated) return out;
  let raw: unknown;
  try {
    raw = JSON.parse(read.bytes.toString('utf8'));
  } catch {
    return out;
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) return out;
  const entries = Object.entries(parsed.data.entries);
  if (entries.length > MAX_ENTRIES) return out;
  for (const [commit, e] of entries)
    out.set(commit, {
      paths: e.paths,
      details: { hunks: e.hunks, diff: e.diff, diffTruncated: e.diffTruncated, note: null },
    });
  return out;
}

/** The cached details of a conflict resolved by `commit` with these files, if the cache has them. */
export function cachedFor(
  cache: ReadonlyMap<string, CachedDetails>,
  commit: string,
  paths: readonly string[],
): ConflictGitDetails | undefined {
  const hit = cache.get(commit);
  if (!hit) return undefined;
  const sorted = [...paths].sort();
  return hit.paths.length === sorted.length && hit.paths.every((p, k) => p === sorted[k]) ? hit.details : undefined;
}

/**
 * Write `entries` (details with a note are not kept: the next report looks again), as many as fit
 * under the size bound; a repository that cannot be written to just goes without.
 */
export function writeConflictDetails(path: string, entries: ReadonlyMap<string, CachedDetails>): void {
  const parts: string[] = [];
  let bytes = 40;
  let count = 0;
  for (const [commit, { paths, details }] of entries) {
    if (details.note !== null || count >= MAX_ENTRIES) continue;
    const entry: Entry = {
      paths: [...paths].sort(),
      hunks: details.hunks,
      diff: details.diff,
      diffTruncated: details.diffTruncated,
    };
    if (!entrySchema.safeParse(entry).success) continue;
    const part = `${JSON.stringify(commit)}:${JSON.stringify(entry)}`;
    const size = Buffer.byteLength(part) + 1;
    if (bytes + size > CONFLICT_DETAILS_MAX_BYTES) continue;
    bytes += size;
    parts.push(part);
    count++;
  }
  try {
    writeFileAtomic(path, `{"version":${VERSION},"entries":{${parts.join(',')}}}\n`);
  } catch {
    // a cache: the next report computes them again
  }
}
