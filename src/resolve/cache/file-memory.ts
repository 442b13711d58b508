import { createHash } from 'node:crypto';
import type { Git } from '../../git/index.js';
import type { CacheEntry, CacheProvenance, ResolutionCache } from './resolution-cache.js';

/** The blob ids of one path's three sides (null: the side has no file there), as git stages them. */
export interface FileStages {
  base: string | null;
  ours: string | null;
  theirs: string | null;
}

/** An entry holds a whole file only while it fits a cache entry that another clone will take in. */
const MAX_FILE_TEXT = 512 * 1024;

/**
 * The key of a whole file's resolution: its path and the blob ids of its three sides. Only the
 * very same merge of that file meets it again, so what the person made of the file there (their
 * edits outside the conflict hunks included) is the answer to give again.
 */
export function fileMemoryKey(path: string, stages: FileStages): string {
  const hash = createHash('sha256');
  hash.update(`\u0000file\u0000${path}`);
  for (const side of [stages.base, stages.ours, stages.theirs]) hash.update(`\u0000${side ?? '-'}`);
  return hash.digest('hex');
}

/**
 * Remember a person's whole result for a file: its text, or null where they deleted it. Not kept
 * when too big to share, or when it is one a check blamed. Returns the key, or null.
 */
export async function rememberFile(
  cache: ResolutionCache,
  input: { path: string; stages: FileStages; text: string | null; provenance?: CacheProvenance },
): Promise<string | null> {
  if (input.text !== null && input.text.length > MAX_FILE_TEXT) return null;
  const key = fileMemoryKey(input.path, input.stages);
  const entry = await cache.put(key, {
    resolution: input.text ?? '',
    rung: 'person',
    by: 'person',
    provenance: { file: input.path, ...input.provenance },
    file: { path: input.path, deleted: input.text === null },
  });
  return entry === null ? null : key;
}

/** The person's remembered result for this very merge of the file (live, a whole-file entry of that path), or null. */
export async function recallFile(
  cache: ResolutionCache,
  path: string,
  stages: FileStages,
): Promise<(CacheEntry & { file: NonNullable<CacheEntry['file']> }) | null> {
  const entry = await cache.get(fileMemoryKey(path, stages));
  if (entry?.file?.path !== path) return null;
  return entry as CacheEntry & { file: NonNullable<CacheEntry['file']> };
}

/**
 * The stages git gives each path when merging `left` into `above` (the worktree's merge of a grid
 * cell): the blobs at their merge base, in `above` and in `left`. Null when the merge base is not
 * one commit (git then merges from a base it builds, whose blobs are not these), and a path is left
 * out where a side holds something other than a regular file there.
 */
export async function mergeStages(
  git: Git,
  above: string,
  left: string,
  paths: readonly string[],
): Promise<Map<string, FileStages> | null> {
  const bases = await git.mergeBases(above, left);
  if (bases.length !== 1 || paths.length === 0) return null;
  const [base, ours, theirs] = await Promise.all(
    [bases[0] as string, above, left].map((commit) => blobsAt(git, commit, paths)),
  );
  const out = new Map<string, FileStages>();
  for (const path of paths) {
    const sides = [base, ours, theirs].map((m) => m?.get(path));
    if (sides.some((s) => s === undefined)) continue;
    const [b, o, t] = sides as Array<string | null>;
    out.set(path, { base: b ?? null, ours: o ?? null, theirs: t ?? null });
  }
  return out;
}

/** The blob id of each path in `commit` (null: no entry), undefined where it is not a regular file. */
async function blobsAt(
  git: Git,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, string | null | undefined>> {
  const listed = await git.query(['ls-tree', '-z', '--full-tree', commit, '--', ...paths]);
  const out = new Map<string, string | null | undefined>(paths.map((p) => [p, null]));
  for (const record of listed.stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, oid] = record.slice(0, tab).split(' ');
    const path = record.slice(tab + 1);
    if (!out.has(path)) continue;
    out.set(path, type === 'blob' && (mode === '100644' || mode === '100755') ? (oid ?? null) : undefined);
  }
  return out;
}
