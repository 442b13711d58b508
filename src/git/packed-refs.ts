import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** A ref update as `Git.updateRefs` takes it: a new value, or a deletion; `oldOid` null = must not exist. */
type RefUpdate =
  { ref: string; newOid: string; oldOid?: string | null } | { ref: string; delete: true; oldOid?: string };

/** The header git (2.x, files backend) writes; a packed-refs file with any other is left to git. */
const HEADER = '# pack-refs with: peeled fully-peeled sorted ';
const ZERO = /^0+$/;

/**
 * Apply a ref transaction by rewriting `packed-refs` under git's own lock (`packed-refs.lock`,
 * created exclusively, renamed over the file): every update lands at once, as `update-ref --stdin`'s
 * transaction would, without a loose file per ref. Many refs written loose cost a lock file, a
 * rename (and a later `pack-refs`) each.
 *
 * Only where that is exactly equivalent: no ref of the transaction exists as a loose file (a loose
 * ref shadows a packed one), the file has git's header, old values match; and not for refs git
 * keeps a reflog of by default. Returns false, having written nothing, when any of that does not
 * hold or the lock is taken: the caller then runs `update-ref`.
 */
export function packedTransaction(gitDir: string, updates: readonly RefUpdate[]): boolean {
  if (updates.some((u) => !u.ref.startsWith('refs/') || /^refs\/(heads|remotes|notes)\//.test(u.ref))) return false;
  if (updates.some((u) => existsSync(join(gitDir, u.ref)))) return false;
  const path = join(gitDir, 'packed-refs');
  const lock = `${path}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, 'wx');
  } catch {
    return false;
  }
  let done = false;
  try {
    const entries = readPacked(path);
    if (entries === null || !apply(entries, updates)) return false;
    const names = [...entries.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const body = names.map((name) => entries.get(name)).join('');
    writeSync(fd, `${HEADER}\n${body}`);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(lock, path);
    done = true;
    return true;
  } finally {
    if (!done) {
      try {
        closeSync(fd);
      } catch {
        // closed above
      }
      rmSync(lock, { force: true });
    }
  }
}

/** The entries of packed-refs by name (each its `oid name` line and any `^peeled` line); null when not git's format. */
function readPacked(path: string): Map<string, string> | null {
  const entries = new Map<string, string>();
  if (!existsSync(path)) return entries;
  const lines = readFileSync(path, 'utf8').split('\n');
  if (lines[0] !== HEADER) return null;
  let last: string | null = null;
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    if (line.startsWith('^')) {
      if (last === null) return null;
      entries.set(last, `${entries.get(last)}${line}\n`);
      continue;
    }
    const space = line.indexOf(' ');
    if (space < 0) return null;
    last = line.slice(space + 1);
    entries.set(last, `${line}\n`);
  }
  return entries;
}

/** Apply the updates to the entries, checking old values; false on a mismatch (nothing is written then). */
function apply(entries: Map<string, string>, updates: readonly RefUpdate[]): boolean {
  for (const u of updates) {
    const current = entries.get(u.ref)?.slice(0, entries.get(u.ref)?.indexOf(' '));
    const expected = u.oldOid;
    if (expected !== undefined) {
      const mustBeAbsent = expected === null || ZERO.test(expected);
      if (mustBeAbsent ? current !== undefined : current !== expected) return false;
    }
    if ('delete' in u) {
      if (current === undefined) return false;
      entries.delete(u.ref);
    } else {
      entries.set(u.ref, `${u.newOid} ${u.ref}\n`);
    }
  }
  return true;
}
