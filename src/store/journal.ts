import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  watch,
  writeSync,
  type FSWatcher,
} from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../util/clock.js';
import { redactKnown } from '../util/secret-registry.js';
import { systemClock } from '../util/clock.js';
import { fsyncDir } from './json-file.js';

/** Every journal line carries these; the rest is the event's payload. */
export interface JournalEntryBase {
  seq: number;
  ts: string;
  type: string;
}

/** An event before the journal numbers and stamps it. */
export type JournalInput<E extends JournalEntryBase> = E extends unknown ? Omit<E, 'seq' | 'ts'> : never;

/** What a full read of the journal found. */
export interface JournalRead<E> {
  entries: E[];
  /** The last line had no newline (a write cut short by a kill); it was ignored. */
  truncatedTail: boolean;
  /** 1-based numbers of complete lines that were not valid JSON events (ignored). */
  badLines: number[];
}

export interface JournalOptions<E> {
  clock?: Clock;
  /** Validates each line on read (e.g. the workflow's event union); lines that fail are reported as bad. */
  parse?: (value: unknown) => E | undefined;
}

export interface FollowOptions {
  /** Deliver only entries with a larger seq (default: from the start of the file). */
  afterSeq?: number;
  /** How often to look for new lines when no file-change notification arrives (ms). */
  pollMs?: number;
  signal?: AbortSignal;
}

function isEntryBase(value: unknown): value is JournalEntryBase {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.seq === 'number' && typeof v.ts === 'string' && typeof v.type === 'string';
}

/**
 * The append-only event journal `events.jsonl`: one JSON object per line with `seq`, `ts`,
 * `type` and a payload. Each append is fsynced before it returns. A kill in the middle of a
 * write leaves a last line without a newline: readers ignore it, and the next append cuts it
 * off before writing. One writer per file (the run lock guarantees it); any number of readers.
 */
export class Journal<E extends JournalEntryBase = JournalEntryBase> {
  private nextSeq: number | undefined;
  private readonly clock: Clock;
  private readonly parseEntry: (value: unknown) => E | undefined;

  constructor(
    readonly path: string,
    options: JournalOptions<E> = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.parseEntry = options.parse ?? ((v) => (isEntryBase(v) ? (v as E) : undefined));
  }

  /** Parse journal text (exported logic for readers of a copy, e.g. doctor). */
  parseText(text: string): JournalRead<E> {
    const entries: E[] = [];
    const badLines: number[] = [];
    const lines = text.split('\n');
    // The piece after the last newline is either '' or an unfinished write.
    const tail = lines.pop() ?? '';
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        badLines.push(i + 1);
        return;
      }
      const entry = this.parseEntry(value);
      if (entry === undefined) badLines.push(i + 1);
      else entries.push(entry);
    });
    return { entries, truncatedTail: tail !== '', badLines };
  }

  /** Every complete entry, in file order. A missing file reads as empty. */
  read(): JournalRead<E> {
    if (!existsSync(this.path)) return { entries: [], truncatedTail: false, badLines: [] };
    return this.parseText(readFileSync(this.path, 'utf8'));
  }

  /** The seq the next append will get (1 for a new journal). */
  peekNextSeq(): number {
    if (this.nextSeq === undefined) {
      const { entries } = this.read();
      this.nextSeq = entries.reduce((max, e) => Math.max(max, e.seq), 0) + 1;
    }
    return this.nextSeq;
  }

  /** Append one event durably (fsync) and return it as written. */
  append(event: JournalInput<E>): E {
    const seq = this.peekNextSeq();
    const entry = { seq, ts: this.clock.now().toISOString(), ...event } as unknown as E;
    // No known secret is ever written, whatever the event carries (a provider's error body echoing the key).
    const line = Buffer.from(`${redactKnown(JSON.stringify(entry))}\n`, 'utf8');
    const created = !existsSync(this.path);
    const fd = openSync(this.path, 'a+');
    try {
      this.cutUnfinishedTail(fd);
      let offset = 0;
      while (offset < line.length) offset += writeSync(fd, line, offset, line.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (created) fsyncDir(dirname(this.path));
    this.nextSeq = seq + 1;
    return entry;
  }

  /** Repair a last line left without its newline by a killed writer: drop it. */
  private cutUnfinishedTail(fd: number): void {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return;
    // Scan backwards for the last newline; the journal's lines are short, read in chunks.
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    let keep = 0;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const idx = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (idx >= 0) {
        keep = start + idx + 1;
        break;
      }
      end = start;
    }
    ftruncateSync(fd, keep);
    fsyncSync(fd);
  }

  /**
   * Call `onEntry` for every entry after `afterSeq`, then for each new one as it is appended,
   * until the returned function is called (or `signal` aborts). Partial lines wait for their
   * newline; a file replaced or truncated (doctor) is re-read without repeating seqs.
   */
  subscribe(onEntry: (entry: E) => void, options: FollowOptions = {}): () => void {
    let lastSeq = options.afterSeq ?? 0;
    let offset = 0;
    let pending = '';
    let closed = false;
    let watcher: FSWatcher | undefined;
    const poll = (): void => {
      if (closed) return;
      let size: number;
      try {
        size = statSync(this.path).size;
      } catch {
        return; // not created yet
      }
      if (size < offset) {
        offset = 0;
        pending = '';
      }
      if (size === offset) return;
      const fd = openSync(this.path, 'r');
      let chunk: Buffer;
      try {
        chunk = Buffer.alloc(size - offset);
        const n = readSync(fd, chunk, 0, chunk.length, offset);
        chunk = chunk.subarray(0, n);
      } finally {
        closeSync(fd);
      }
      offset += chunk.length;
      const text = pending + chunk.toString('utf8');
      const cut = text.lastIndexOf('\n');
      pending = text.slice(cut + 1);
      if (cut < 0) return;
      for (const entry of this.parseText(text.slice(0, cut + 1)).entries) {
        if (closed) return;
        if (entry.seq <= lastSeq) continue;
        lastSeq = entry.seq;
        onEntry(entry);
      }
    };
    const timer = setInterval(poll, options.pollMs ?? 250);
    const tryWatch = (): void => {
      if (watcher !== undefined || closed) return;
      try {
        watcher = watch(this.path, { persistent: false }, () => poll());
        watcher.on('error', () => undefined);
      } catch {
        // the file does not exist yet: polling covers it until it does
      }
    };
    const unsubscribe = (): void => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      watcher?.close();
      options.signal?.removeEventListener('abort', unsubscribe);
    };
    options.signal?.addEventListener('abort', unsubscribe);
    if (options.signal?.aborted) {
      unsubscribe();
      return unsubscribe;
    }
    tryWatch();
    poll();
    if (watcher === undefined) {
      const retry = setInterval(() => {
        if (closed || watcher !== undefined) clearInterval(retry);
        else tryWatch();
      }, options.pollMs ?? 250);
    }
    return unsubscribe;
  }

  /** The same as `subscribe`, as an async iterator; ends when `signal` aborts or the loop breaks. */
  async *follow(options: FollowOptions = {}): AsyncGenerator<E, void, undefined> {
    const queue: E[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const unsubscribe = this.subscribe(
      (entry) => {
        queue.push(entry);
        wake?.();
      },
      { ...options, signal: undefined },
    );
    const onAbort = (): void => {
      ended = true;
      wake?.();
    };
    options.signal?.addEventListener('abort', onAbort);
    if (options.signal?.aborted) ended = true;
    try {
      while (true) {
        while (queue.length > 0) yield queue.shift() as E;
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}
