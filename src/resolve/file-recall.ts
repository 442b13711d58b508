import type { Git } from '../git/index.js';
import { replaceFileWithin } from '../util/replace-file.js';
import { fileMemoryKey, recallFile } from './cache/file-memory.js';
import type { ResolutionCache } from './cache/resolution-cache.js';
import type { FileDecision } from './file-level.js';
import { hasMarkers, parseConflictText } from './parse/markers.js';
import type { UnmergedEntry } from './parse/stages.js';
import type { PathRule } from './policy/path-policy.js';
import type { HunkResolution } from './types.js';

/** What the ladder reports of a file the memory settled (the fields of a WorkingTreeFileResult it sets). */
export interface RecalledFile {
  path: string;
  status: 'resolved';
  resolutions: HunkResolution[];
  remaining: [];
  decision: FileDecision;
  note: string;
  recalled: { key: string; deleted: boolean; imported: boolean };
}

/**
 * The person's whole result for this very merge of the file, given again: where the file's three
 * sides are the blobs they were when the person resolved it, their file (or its deletion) is
 * written and staged as it was, so their edits outside the conflict hunks are kept too. Each
 * hunk of the file is reported settled by the cache under the file's key (a blame of the
 * resolution forgets the file's memory with it). Null where there is no such memory, or where the
 * fork's policy decides the path: an answer from another clone never stands in for it, and only a
 * person's policy (`person`) lets this clone's own person's answer through.
 */
export async function recallWholeFile(
  git: Git,
  top: string,
  input: {
    entry: UnmergedEntry;
    cache: ResolutionCache;
    decision: FileDecision;
    policy: PathRule | null;
    onDisk: string | null;
  },
): Promise<RecalledFile | null> {
  const { entry, cache, decision, policy } = input;
  const stages = { base: entry.base?.oid ?? null, ours: entry.ours?.oid ?? null, theirs: entry.theirs?.oid ?? null };
  const hit = await recallFile(cache, entry.path, stages);
  if (hit === null) return null;
  if (policy !== null && (policy.decision.kind !== 'person' || hit.imported === true)) return null;
  // What another clone pushed is data to validate: a file still holding markers is never written.
  if (hasMarkers(hit.resolution)) return null;
  const key = fileMemoryKey(entry.path, stages);
  if (hit.file.deleted) await git.run(['rm', '--quiet', '--force', '--', entry.path]);
  else {
    if (!replaceFileWithin(top, entry.path, Buffer.from(hit.resolution, 'utf8'))) return null;
    await git.run(['add', '--', entry.path]);
  }
  const hunks = input.onDisk === null ? [] : parseConflictText(input.onDisk, { path: entry.path }).hunks;
  const resolutions = hunks.map((h) => ({
    text: '',
    rung: 'cache' as const,
    // As the record names a cached hunk's answer: whose it is, and whether another clone gave it.
    by: `${hit.rung}:${hit.by}${hit.imported === true ? ' (shared cache, from another clone)' : ''}`,
    hunkIndex: h.index,
    cacheKey: key,
  }));
  const from = [
    hit.provenance.merge && `run ${hit.provenance.merge}`,
    hit.provenance.cell && `cell ${hit.provenance.cell}`,
    hit.imported && 'from another clone',
  ].filter(Boolean);
  const what = hit.file.deleted ? '`git rm`' : 'their whole file';
  const note = `the person's earlier choice for these same three sides (${[what, ...from].join(', ')}) taken again`;
  return {
    path: entry.path,
    status: 'resolved',
    resolutions,
    remaining: [],
    decision,
    note,
    recalled: { key, deleted: hit.file.deleted, imported: hit.imported === true },
  };
}
