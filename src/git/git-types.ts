import type { GitObject, ObjectInfo } from './cat-file.js';

/** The shapes of the Git class's calls and answers (git.ts), and what its capped reads refuse. */

export interface GitRunOptions {
  /** Data written to git's stdin. */
  input?: string | Buffer;
  /** Exit codes that are data, not failure (merge-tree's 1 = conflicts). Default [0]. */
  okExitCodes?: number[];
  /** Extra environment for this call only (e.g. GIT_AUTHOR_DATE). */
  env?: Record<string, string>;
  /** Run in another directory than the Git's own (e.g. a worktree). */
  cwd?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface GitResult {
  exitCode: number;
  /** stdout exactly as git wrote it (final newline kept). */
  stdout: string;
  stderr: string;
}

export interface RefEntry {
  ref: string;
  oid: string;
}

/** One line of an `update-ref --stdin` transaction. */
export type RefUpdate =
  { ref: string; newOid: string; oldOid?: string | null } | { ref: string; delete: true; oldOid?: string };

/** Options of `query`: exit codes that are data, the command's stdin and more environment. */
export type QueryOptions = Pick<GitRunOptions, 'okExitCodes' | 'env'> & { input?: string };

export interface GitOptions {
  cwd: string;
  gitBinary?: string;
  /** Extra fixed environment, merged over the defaults. */
  env?: Record<string, string>;
  /**
   * The git directory, named explicitly (with `cwd` as the work tree) instead of found through
   * `cwd/.git`, which whatever runs in the work tree (a check) may have rewritten.
   */
  gitDir?: string;
}

/** What `readCapped` gave: the object, or why it was refused ('missing', a wrong type, too large). */
export type CappedRead = { ok: true; object: GitObject } | { ok: false; reason: string };

/** `readBlobCapped`'s answer: the blob's text, or why it was refused. */
export type CappedText = { ok: true; text: string } | { ok: false; reason: string };

/** Why an object of unknown origin is refused before its content is read (missing, of another type, too large); null to read it. */
export function cappedRefusal(
  info: ObjectInfo | null,
  limits: { type: GitObject['type']; maxBytes: number },
): string | null {
  if (info === null) return 'missing';
  if (info.type !== limits.type) return `a ${info.type}, not a ${limits.type}`;
  if (info.size > limits.maxBytes) return `${sizeText(info.size)}, over the limit of ${sizeText(limits.maxBytes)}`;
  return null;
}

/** A byte count as people read it: `512 bytes`, `64 KiB`, `150.0 MiB`. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
