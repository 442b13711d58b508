import type { Git } from '../../git/index.js';
import { auditFile, type AuditInput, type FileAudit } from '../../resolve/audit/index.js';
import { blobText, changedBlobs } from './tree-versions.js';

/** A file's version is read up to this size; past it the file is reported as not audited. */
const MAX_BLOB_BYTES = 2 * 1024 * 1024;
/** Moved lines are looked for in at most this many files, holding at most this much text, so memory stays flat. */
const MAX_POOL_FILES = 50;
const MAX_POOL_CHARS = 4 * 1024 * 1024;

/** The four versions of a resolved merge: its base (null: their merge base), the fork's side, upstream's, the resolution. */
export interface MergeVersions {
  base: string | null;
  ours: string;
  theirs: string;
  resolved: string;
}

type Changes = Map<string, { from: string | null; to: string | null }>;

function tooLarge(path: string): FileAudit {
  const none = {
    ...{ changed: false, deletedFile: false, resolvedDeleted: false, hunks: 0 },
    ...{ dropped: 0, restored: 0, rewritten: 0, moved: 0, losses: [], truncated: false },
  };
  return { path, skipped: 'too-large', ours: none, theirs: none };
}

/** Reads one path's four versions from the changes of each side against the base (absent there: the base's blob). */
async function readInput(git: Git, path: string, sides: [Changes, Changes, Changes]): Promise<AuditInput | null> {
  const baseId = sides.map((s) => s.get(path)?.from).find((id) => id !== undefined) ?? null;
  const at = (changes: Changes): string | null => {
    const change = changes.get(path);
    return change === undefined ? baseId : change.to;
  };
  const ids = [baseId, ...sides.map(at)];
  const texts = await Promise.all(ids.map((id) => blobText(git, id, MAX_BLOB_BYTES)));
  if (texts.includes('too-large')) return null;
  const [base, ours, theirs, resolved] = texts as Array<string | null>;
  return { path, base: base ?? null, ours: ours ?? null, theirs: theirs ?? null, resolved: resolved ?? null };
}

/**
 * The survival audit of `paths` in a resolved merge, read from git objects: each side's change to
 * each path (base → side) against the resolution. Lines moved into another file count as kept
 * when that file is among the first audited or the others the resolution changed (a bounded pool).
 * Each file's text is dropped once audited.
 */
export async function auditMerge(git: Git, versions: MergeVersions, paths: readonly string[]): Promise<FileAudit[]> {
  const base = versions.base ?? (await git.mergeBase(versions.ours, versions.theirs));
  if (base === null || paths.length === 0) return [];
  const [ours, theirs, resolved] = (await Promise.all(
    [versions.ours, versions.theirs, versions.resolved].map((to) => changedBlobs(git, base, to)),
  )) as [Changes, Changes, Changes];
  const wanted = new Set(paths);
  const poolPaths = [...paths, ...[...resolved.keys()].filter((p) => !wanted.has(p))].slice(0, MAX_POOL_FILES);
  const pool: AuditInput[] = [];
  let chars = 0;
  for (const path of poolPaths) {
    const input = await readInput(git, path, [ours, theirs, resolved]);
    if (input === null) continue;
    chars += (input.base?.length ?? 0) + (input.resolved?.length ?? 0);
    if (chars > MAX_POOL_CHARS) break;
    pool.push(input);
  }
  const audits: FileAudit[] = [];
  for (const path of paths) {
    const input = pool.find((p) => p.path === path) ?? (await readInput(git, path, [ours, theirs, resolved]));
    audits.push(input === null ? tooLarge(path) : auditFile(input, pool));
  }
  return audits;
}
