import type { Git } from '../../git/index.js';
import { withTempIndex } from '../../git/temp-index.js';
import { TOOL_IDENTITY } from '../../git/tool-identity.js';
import { preferredRecord, recordPath, recordText, syncRecordSchema, type SyncRecord } from './record.js';

/** The entries of the records commits read last: a commit's tree never changes, and a run reads the same few again and again. */
const listed = new Map<string, Map<string, string>>();
const LISTED_KEPT = 16;

/** path -> blob id of every record in a records commit (none for null). A new map the caller may change. */
export async function treeEntries(git: Git, commit: string | null): Promise<Map<string, string>> {
  if (commit === null) return new Map();
  let entries = listed.get(commit);
  if (entries === undefined) {
    entries = new Map();
    const { stdout } = await git.query(['ls-tree', '-r', '--full-tree', commit]);
    for (const line of stdout.split('\n')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      entries.set(line.slice(tab + 1), line.slice(0, tab).split(' ')[2] as string);
    }
    if (listed.size >= LISTED_KEPT) listed.delete(listed.keys().next().value as string);
    listed.set(commit, entries);
  }
  return new Map(entries);
}

/** A stored record, or null when the blob is not one (a file splintercat did not write is left alone). */
export async function readRecord(git: Git, blob: string): Promise<SyncRecord | null> {
  const text = await git.readBlobText(blob);
  if (text === null) return null;
  try {
    const parsed = syncRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
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
      const [a, b] = [await readRecord(git, have), await readRecord(git, oid)];
      const keep = a === null ? oid : b === null ? have : preferredRecord(a, b) === a ? have : oid;
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
