import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { holdOpen, stopProcess } from './process-ref.js';

/** What the child has printed that no answer has taken yet, one buffer per stream. */
export interface Unread {
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * Takes the oldest waiting request's answer off the front of `unread` (shortening its buffers), or
 * returns undefined while part of that answer has yet to come; a throw means the output cannot be read.
 */
export type ReadAnswer<T> = (unread: Unread) => T | undefined;

/** How the queue starts its child, reads its answers and explains the child's death. */
export interface RequestQueueOptions<T> {
  start: () => ChildProcessWithoutNullStreams;
  read: ReadAnswer<T>;
  /** The error for requests still waiting when the child exits on its own; `stderr` is what no answer took. */
  exitError: (code: number | undefined, stderr: string) => Error;
}

interface Waiting<T> {
  resolve: (answer: T) => void;
  reject: (error: unknown) => void;
}

/**
 * Requests answered one by one, in order, by one long-lived child process read through its pipes.
 *
 * - Answers are matched to requests by position: the n-th answer read settles the n-th request written.
 * - The child is started by the first request and again by the first one after it died or was closed.
 * - Output belongs to the child that printed it: a new child starts with empty buffers, and whatever
 *   a stopped child still prints is dropped.
 * - When the child exits on its own, fails to start, or prints output that cannot be read, every
 *   waiting request is rejected and the child is stopped, since later answers could no longer be
 *   matched; close() rejects them the same way. No request waits on a child that is gone.
 * - No back-pressure: a request is written at once and Node buffers what the pipe cannot take yet;
 *   callers bound how many they keep in flight (`pending`).
 * - The child keeps the event loop alive only while a request waits, so an idle queue never holds a CLI open.
 */
export class RequestQueue<T> {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly waiting: Waiting<T>[] = [];
  private unread: Unread = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
  private readonly grown = { stdout: new GrowingBuffer(), stderr: new GrowingBuffer() };

  constructor(private readonly options: RequestQueueOptions<T>) {}

  /** Requests written and not yet answered. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Write `line` (the request, with its newline) to the child and wait for its answer. */
  request(line: string): Promise<T> {
    const child = this.ensure();
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (this.waiting.length === 1) holdOpen(child, true);
      child.stdin.write(line);
    });
  }

  /** Stop the child; every waiting request is rejected with `error`. */
  close(error: unknown): void {
    stopProcess(this.child);
    this.child = undefined;
    this.unread = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    for (const request of this.waiting.splice(0)) request.reject(error);
  }

  private ensure(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = this.options.start();
    const append = (stream: keyof Unread) => (chunk: Buffer) => {
      if (this.child !== child) return;
      this.unread[stream] = this.grown[stream].append(this.unread[stream], chunk);
      this.drain();
    };
    child.stdout.on('data', append('stdout'));
    child.stderr.on('data', append('stderr'));
    child.stdin.on('error', () => undefined); // a child that died is reported by 'close'
    child.on('error', (error) => {
      if (this.child === child) this.close(error);
    });
    child.on('close', (code) => {
      if (this.child === child)
        this.close(this.options.exitError(code ?? undefined, this.unread.stderr.toString('utf8')));
    });
    holdOpen(child, false);
    this.unread = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    this.child = child;
    return child;
  }

  private drain(): void {
    while (this.waiting.length > 0) {
      let answer: T | undefined;
      try {
        answer = this.options.read(this.unread);
      } catch (error) {
        this.close(error);
        return;
      }
      if (answer === undefined) return;
      const head = this.waiting.shift() as Waiting<T>;
      if (this.waiting.length === 0 && this.child) holdOpen(this.child, false);
      head.resolve(answer);
    }
  }
}

/**
 * Where a stream's unread bytes accumulate: chunks are copied after the unread ones into spare room
 * that doubles when it runs out, so a long answer (a big object) costs time in proportion to its
 * size, not to its size times its number of chunks as concatenating at every chunk would.
 */
class GrowingBuffer {
  private store = Buffer.alloc(0);
  /** Bytes of `store` written so far. */
  private used = 0;

  /** `unread` (a view ending at the bytes written last, or a fresh buffer) followed by `chunk`. */
  append(unread: Buffer, chunk: Buffer): Buffer {
    const start = unread.byteOffset - this.store.byteOffset;
    const inPlace = unread.buffer === this.store.buffer && start >= 0 && start + unread.length === this.used;
    if (inPlace && this.used + chunk.length <= this.store.length) {
      chunk.copy(this.store, this.used);
      this.used += chunk.length;
      return this.store.subarray(start, this.used);
    }
    if (unread.length === 0) {
      // Nothing waits: start over rather than keep a large store alive for small answers.
      this.store = Buffer.alloc(0);
      this.used = 0;
      return chunk;
    }
    const size = unread.length + chunk.length;
    this.store = Buffer.allocUnsafeSlow(Math.max(size * 2, 64 * 1024));
    unread.copy(this.store, 0);
    chunk.copy(this.store, unread.length);
    this.used = size;
    return this.store.subarray(0, size);
  }
}
