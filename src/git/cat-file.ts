import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { GitError } from './git-error.js';
import { holdOpen, stopProcess } from './process-ref.js';

export interface GitObject {
  oid: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  content: Buffer;
}

interface Pending {
  spec: string;
  resolve: (value: GitObject | null) => void;
  reject: (error: unknown) => void;
}

/**
 * One long-lived `git cat-file --batch` process: object reads cost a pipe
 * round-trip instead of a process start. Requests are answered in order.
 */
export class CatFileBatch {
  private child: ChildProcessWithoutNullStreams | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly queue: Pending[] = [];
  private stderr = '';

  constructor(
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly gitBinary = 'git',
  ) {}

  /** Read an object by any revision spec git understands; null when it does not exist. */
  read(spec: string): Promise<GitObject | null> {
    if (spec.includes('\n')) return Promise.reject(new Error(`invalid object spec: ${JSON.stringify(spec)}`));
    const child = this.ensure();
    return new Promise((resolve, reject) => {
      this.queue.push({ spec, resolve, reject });
      // Keep the event loop alive only while a read is pending, so an idle reader never holds a CLI open.
      if (this.queue.length === 1) holdOpen(child, true);
      child.stdin.write(`${spec}\n`);
    });
  }

  /** Stop the process; pending reads are rejected. */
  close(): void {
    stopProcess(this.child);
    this.child = undefined;
    this.failAll(new Error('cat-file reader closed'));
  }

  private ensure(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn(this.gitBinary, ['cat-file', '--batch'], { cwd: this.cwd, env: this.env });
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => this.failAll(error));
    child.on('close', (code) => {
      if (this.child === child) this.child = undefined;
      if (this.queue.length > 0) {
        this.failAll(new GitError(['cat-file', '--batch'], code ?? undefined, this.stderr, this.cwd));
      }
    });
    holdOpen(child, false);
    this.child = child;
    return child;
  }

  private drain(): void {
    for (;;) {
      const head = this.queue[0];
      if (!head) return;
      const newline = this.buffer.indexOf(10);
      if (newline < 0) return;
      const header = this.buffer.subarray(0, newline).toString('utf8');
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.buffer = this.buffer.subarray(newline + 1);
        this.queue.shift();
        head.resolve(null);
        if (this.queue.length === 0 && this.child) holdOpen(this.child, false);
        continue;
      }
      const [oid, type, sizeText] = header.split(' ');
      const size = Number(sizeText);
      if (!oid || !type || !Number.isFinite(size)) {
        this.failAll(new Error(`unexpected cat-file header: ${header}`));
        return;
      }
      const end = newline + 1 + size;
      if (this.buffer.length < end + 1) return;
      const content = Buffer.from(this.buffer.subarray(newline + 1, end));
      this.buffer = this.buffer.subarray(end + 1);
      this.queue.shift();
      head.resolve({ oid, type: type as GitObject['type'], content });
      if (this.queue.length === 0 && this.child) holdOpen(this.child, false);
    }
  }

  private failAll(error: unknown): void {
    while (this.queue.length > 0) this.queue.shift()?.reject(error);
  }
}
