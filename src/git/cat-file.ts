import { spawn } from 'node:child_process';
import { GitError } from './git-error.js';
import { RequestQueue, type Unread } from './request-queue.js';

export interface GitObject {
  oid: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  content: Buffer;
}

/**
 * One long-lived `git cat-file --batch` process: object reads cost a pipe
 * round-trip instead of a process start. Requests are answered in order.
 */
export class CatFileBatch {
  private readonly queue: RequestQueue<GitObject | null>;

  constructor(cwd: string, env: NodeJS.ProcessEnv, gitBinary = 'git') {
    this.queue = new RequestQueue({
      start: () => spawn(gitBinary, ['cat-file', '--batch'], { cwd, env }),
      read: readObject,
      exitError: (code, stderr) => new GitError(['cat-file', '--batch'], code, stderr, cwd),
    });
  }

  /** Read an object by any revision spec git understands; null when it does not exist. */
  read(spec: string): Promise<GitObject | null> {
    if (spec.includes('\n')) return Promise.reject(new Error(`invalid object spec: ${JSON.stringify(spec)}`));
    return this.queue.request(`${spec}\n`);
  }

  /** Stop the process; pending reads are rejected. */
  close(): void {
    this.queue.close(new Error('cat-file reader closed'));
  }
}

/** An object's id, type and size as `cat-file --batch-check` tells them, without its content. */
export interface ObjectInfo {
  oid: string;
  type: GitObject['type'];
  size: number;
}

/**
 * One long-lived `git cat-file --batch-check` process: an object's type and size before anything
 * reads its content, so an object of unknown origin is refused by its size, never read whole first.
 */
export class CatFileCheck {
  private readonly queue: RequestQueue<ObjectInfo | null>;

  constructor(cwd: string, env: NodeJS.ProcessEnv, gitBinary = 'git') {
    this.queue = new RequestQueue({
      start: () => spawn(gitBinary, ['cat-file', '--batch-check'], { cwd, env }),
      read: readInfo,
      exitError: (code, stderr) => new GitError(['cat-file', '--batch-check'], code, stderr, cwd),
    });
  }

  /** The object `spec` names (any revision spec); null when it does not exist. */
  info(spec: string): Promise<ObjectInfo | null> {
    if (spec.includes('\n')) return Promise.reject(new Error(`invalid object spec: ${JSON.stringify(spec)}`));
    return this.queue.request(`${spec}\n`);
  }

  /** Stop the process; pending requests are rejected. */
  close(): void {
    this.queue.close(new Error('cat-file checker closed'));
  }
}

/** One answer of `cat-file --batch-check`: a header line alone. */
function readInfo(unread: Unread): ObjectInfo | null | undefined {
  const out = unread.stdout;
  const newline = out.indexOf(10);
  if (newline < 0) return undefined;
  const header = out.subarray(0, newline).toString('utf8');
  unread.stdout = out.subarray(newline + 1);
  if (header.endsWith(' missing') || header.endsWith(' ambiguous')) return null;
  const [oid, type, sizeText] = header.split(' ');
  const size = Number(sizeText);
  if (!oid || !type || !Number.isFinite(size)) throw new Error(`unexpected cat-file header: ${header}`);
  return { oid, type: type as GitObject['type'], size };
}

/** One answer of `cat-file --batch`: a header line, then (unless missing) the content and a newline. */
function readObject(unread: Unread): GitObject | null | undefined {
  const out = unread.stdout;
  const newline = out.indexOf(10);
  if (newline < 0) return undefined;
  const header = out.subarray(0, newline).toString('utf8');
  if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
    unread.stdout = out.subarray(newline + 1);
    return null;
  }
  const [oid, type, sizeText] = header.split(' ');
  const size = Number(sizeText);
  if (!oid || !type || !Number.isFinite(size)) throw new Error(`unexpected cat-file header: ${header}`);
  const end = newline + 1 + size;
  if (out.length < end + 1) return undefined;
  unread.stdout = out.subarray(end + 1);
  return { oid, type: type as GitObject['type'], content: Buffer.from(out.subarray(newline + 1, end)) };
}
