import type { Git } from '../../git/index.js';
import { withTempIndex } from '../../git/temp-index.js';
import { TOOL_IDENTITY } from '../../git/tool-identity.js';
import { sizeText } from '../../git/git-types.js';
import { OBJECT_LIMITS } from '../../git/object-limits.js';
import { preferredRecord, recordPath, recordText, type SyncRecord } from './record.js';
import { checkRecord } from './record-shapes.js';
import type { RejectedObjects } from './rejected-objects.js';

/** A records commit's listing: the entries that look like records, and those that do not, with why. */
interface Listing {
  entries: Map<string, string>;
  refused: Array<{ path: string; why: string; oid: string }>;
}

/** The listings of the records commits read last: a commit's tree never changes, and a run reads the same few again and again. */
const listed = new Map<string, Listing>();
const LISTED_KEPT = 16;
const RECORD_PATH = /^(cell|resolution|check|accepted-failure)\/[0-9a-f]{2}\/[0-9a-f]{64}\.json$/;

/** Where a refusal is named: a ref (or commit) and, for an entry, its path. */
export interface Named {
  /** The ref the commit was read from (or the commit itself). */
  where: string;
  rejected: RejectedObjects;
}

/**
 * path -> blob id of every record in a records commit (none for null). A new map the caller may
 * change. Only what has a record's form is listed: a regular file at `KIND/II/ID.json` no larger
 * than a record may be; anything else (another path, a tree, a link, a huge blob), and a ref
 * that is not a commit at all, is left out and named in `named.rejected` when given.
 */
export async function treeEntries(git: Git, commit: string | null, named?: Named): Promise<Map<string, string>> {
  const listing = await recordListing(git, commit);
  if (!listing.ok) {
    named?.rejected.add(named.where, listing.why, commit ?? '');
    return new Map();
  }
  for (const r of listing.refused) named?.rejected.add(`${named.where}:${r.path}`, r.why, r.oid);
  return new Map(listing.entries);
}

/** `treeEntries`' listing of `commit`, with the entries it leaves out (or why `commit` is not a records commit at all). */
export async function recordListing(
  git: Git,
  commit: string | null,
): Promise<({ ok: true } & Listing) | { ok: false; why: string }> {
  if (commit === null) return { ok: true, entries: new Map(), refused: [] };
  let listing = listed.get(commit);
  if (listing === undefined) {
    const info = await git.objectInfo(commit);
    if (info?.type !== 'commit') return { ok: false, why: info === null ? 'missing' : `a ${info.type}, not a commit` };
    listing = await listRecords(git, commit);
    if (listed.size >= LISTED_KEPT) listed.delete(listed.keys().next().value as string);
    listed.set(commit, listing);
  }
  return { ok: true, ...listing };
}

async function listRecords(git: Git, commit: string): Promise<Listing> {
  const format = '--format=%(objectmode) %(objecttype) %(objectname) %(objectsize)%x09%(path)';
  const { stdout } = await git.query(['ls-tree', '-r', '-z', '--full-tree', format, commit]);
  const listing: Listing = { entries: new Map(), refused: [] };
  for (const line of stdout.split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, oid, size] = line.slice(0, tab).split(' ') as [string, string, string, string];
    const path = line.slice(tab + 1);
    const why =
      mode !== '100644' || type !== 'blob'
        ? `a ${type} of mode ${mode}, not a record's file`
        : !RECORD_PATH.test(path)
          ? "not a record's path"
          : Number(size) > OBJECT_LIMITS.record
            ? `${sizeText(Number(size))}, over the limit of ${sizeText(OBJECT_LIMITS.record)}`
            : listing.entries.size >= OBJECT_LIMITS.treeEntries
              ? `more than ${OBJECT_LIMITS.treeEntries} records`
              : null;
    if (why === null) listing.entries.set(path, oid);
    else if (listing.refused.length < 100) listing.refused.push({ path: JSON.stringify(path).slice(1, -1), why, oid });
  }
  return listing;
}

/** What reading one stored record gave: the record, or why it is not one. */
export type ReadRecord = { ok: true; record: SyncRecord } | { ok: false; why: string };

/** The record stored at `path` as blob `blob`: read within a record's size limit, parsed and checked (record-shapes.ts). */
export async function readRecord(git: Git, blob: string, path: string): Promise<ReadRecord> {
  const read = await git.readBlobCapped(blob, OBJECT_LIMITS.record);
  if (!read.ok) return { ok: false, why: read.reason };
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch {
    return { ok: false, why: 'not JSON' };
  }
  const checked = checkRecord(value, path);
  return checked.ok ? checked : { ok: false, why: checked.why };
}

/**
 * The union of records trees: every path of every tree, and where two trees hold different
 * records under one path (one fact stored twice with different details), the preferred one.
 * Nothing in any of them is dropped: records only accumulate.
 */
export async function unionEntries(git: Git, trees: Map<string, string>[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const tree of trees) {
    for (const [path, oid] of tree) {
      const have = out.get(path);
      if (have === undefined || have === oid) {
        out.set(path, oid);
        continue;
      }
      const [a, b] = [await readRecord(git, have, path), await readRecord(git, oid, path)];
      const keep = !a.ok ? oid : !b.ok ? have : preferredRecord(a.record, b.record) === a.record ? have : oid;
      out.set(path, keep);
    }
  }
  return out;
}

/** Write records as blobs and add them to `entries` (a record already there under its id keeps the preferred one). */
export async function addRecords(
  git: Git,
  entries: Map<string, string>,
  records: SyncRecord[],
): Promise<{ entries: Map<string, string>; added: number }> {
  const incoming = new Map<string, string>();
  for (const record of records) {
    incoming.set(
      recordPath(record),
      await git.queryText(['hash-object', '-w', '--stdin'], { input: recordText(record) }),
    );
  }
  const merged = await unionEntries(git, [entries, incoming]);
  let added = 0;
  for (const path of merged.keys()) if (!entries.has(path)) added++;
  return { entries: merged, added };
}

/** A records commit of `entries` with `parents`, through a throwaway index. */
export async function writeRecordsCommit(
  git: Git,
  entries: Map<string, string>,
  parents: string[],
  message: string,
): Promise<string> {
  return withTempIndex(async (env) => {
    const lines = [...entries].map(([path, oid]) => `100644 ${oid}\t${path}`).join('\n');
    await git.query(['update-index', '--index-info'], { env, input: lines === '' ? '' : `${lines}\n` });
    const tree = await git.queryText(['write-tree'], { env });
    return git.queryText(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], {
      input: `${message}\n`,
      env: TOOL_IDENTITY,
    });
  });
}
