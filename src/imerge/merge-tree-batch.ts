import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { GitError, holdOpen, stopProcess, type Git } from '../git/index.js';
import { parseMergeTreeOutput, type MergeTreeResult } from './merge-tree.js';

interface Pending {
  resolve: (result: MergeTreeResult | null) => void;
  reject: (error: unknown) => void;
  settled: boolean;
}

const ARGS = ['merge-tree', '--write-tree', '--stdin'];
/** How long part of an answer may wait for its rest before the output counts as unreadable. */
const STALL_MS = 30_000;
/** How long the first answer of a lane may take (a merge of a commit with itself, answered in a millisecond) before batching is given up. */
const PROBE_MS = 2000;

/**
 * Merges through long-lived `git merge-tree --write-tree --stdin` processes, one line per merge
 * A merge-tree process of its own costs a fork and an exec, git's start-up and the repository's
 * set-up (config, packs, commit-graph) before the merge itself, about as much as the merge. Lanes are started as the
 * merges in flight need them, up to `lanes`, each answering in order.
 *
 * Some gits do not flush their output after each merge of `--stdin` (2.39.5, as Debian 12 ships
 * it, writes into the pipe through a full buffer; later ones flush), so a merge would be answered
 * only once the buffer filled. Where coreutils' `stdbuf` is installed, it runs git with an
 * unbuffered stdout. Each lane's first line is a merge of a commit with itself: when that is not
 * answered within PROBE_MS (a git that buffers and no `stdbuf`, or a git without `--stdin`), every
 * answer is null from then on and the caller merges one process per merge, as before.
 */
export class MergeTreeBatch {
  private readonly running: Lane[] = [];
  private unsupported = false;

  /** `probeMs`: how long a lane's first answer may take (PROBE_MS); `stallMs`: part of an answer its rest (STALL_MS). */
  constructor(
    private readonly git: Git,
    private readonly lanes: number,
    private readonly probeMs = PROBE_MS,
    private readonly stallMs = STALL_MS,
  ) {}

  /** Merge two commits (exit 1, a conflict, as data); null when this git cannot batch merges. */
  merge(ours: string, theirs: string, signal?: AbortSignal): Promise<MergeTreeResult | null> {
    if (this.unsupported) return Promise.resolve(null);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let lane = this.running.find((l) => l.pending === 0);
    if (!lane && this.running.length < this.lanes) {
      lane = new Lane(this.git, this.probeMs, this.stallMs, () => {
        this.unsupported = true;
      });
      this.running.push(lane);
    }
    lane ??= this.running.reduce((a, b) => (b.pending < a.pending ? b : a));
    return lane.merge(ours, theirs, signal);
  }

  /** Stop the processes; merges still pending are rejected. */
  close(): void {
    for (const lane of this.running.splice(0)) lane.close();
  }
}

/** One `merge-tree --stdin` process and the merges it has yet to answer, in order. */
class Lane {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly queue: Pending[] = [];
  private readonly decoder = new StringDecoder('utf8');
  /** Complete NUL-terminated fields not yet consumed, and the start of the next. */
  private fields: string[] = [];
  private partial = '';
  private answered = 0;
  private stderr = '';
  private probe: NodeJS.Timeout | undefined;
  private stall: NodeJS.Timeout | undefined;

  constructor(
    private readonly git: Git,
    private readonly probeMs: number,
    private readonly stallMs: number,
    private readonly onUnsupported: () => void,
  ) {}

  get pending(): number {
    return this.queue.length;
  }

  merge(ours: string, theirs: string, signal?: AbortSignal): Promise<MergeTreeResult | null> {
    const fresh = this.child === undefined;
    const child = this.ensure();
    if (fresh && this.answered === 0) this.startProbe(child, ours);
    return new Promise((resolve, reject) => {
      // An aborted merge is rejected at once; git's answer, when it comes, is dropped. A merge
      // answered lets go of the signal, which outlives thousands of merges in one workflow run.
      const onAbort = (): void => {
        if (entry.settled) return;
        entry.settled = true;
        reject(abortReason(signal as AbortSignal));
      };
      const entry: Pending = {
        resolve: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
        settled: false,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
      if (this.queue.length === 1) holdOpen(child, true);
      child.stdin.write(`${ours} ${theirs}\n`);
    });
  }

  /** Ask for a merge that git answers at once, and give batching up if the answer does not come. */
  private startProbe(child: ChildProcessWithoutNullStreams, commit: string): void {
    const entry: Pending = {
      resolve: () => clearTimeout(this.probe),
      reject: () => clearTimeout(this.probe),
      settled: false,
    };
    this.queue.push(entry);
    holdOpen(child, true);
    child.stdin.write(`${commit} ${commit}\n`);
    this.probe = setTimeout(() => this.giveUp(), this.probeMs);
    this.probe.unref();
  }

  /** This git cannot answer merge by merge: every merge asked of it is answered null. */
  private giveUp(): void {
    this.onUnsupported();
    stopProcess(this.child);
    this.child = undefined;
    for (const entry of this.queue.splice(0)) settle(entry, null);
  }

  close(): void {
    clearTimeout(this.probe);
    clearTimeout(this.stall);
    stopProcess(this.child);
    this.child = undefined;
    this.fields = [];
    this.partial = '';
    this.failAll(new Error('merge-tree batch closed'));
  }

  private ensure(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const stdbuf = findStdbuf(this.git.env.PATH);
    const [command, args] = stdbuf ? [stdbuf, ['-o0', this.git.gitBinary, ...ARGS]] : [this.git.gitBinary, ARGS];
    const child = spawn(command, args, { cwd: this.git.cwd, env: this.git.env });
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (this.partial + this.decoder.write(chunk)).split('\0');
      this.partial = parts.pop() as string;
      this.fields.push(...parts);
      this.drain();
    });
    // The end of what git said, for the error if it dies (a lane lives for thousands of merges).
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-8192);
    });
    child.stdin.on('error', () => undefined);
    // Not started (no such program): merge one by one.
    child.on('error', (error) => (this.answered === 0 ? this.giveUp() : this.failAll(error)));
    child.on('close', (code) => {
      if (this.child === child) this.child = undefined;
      if (this.queue.length === 0) return;
      // Ended before its first answer, the probe: a git without --stdin (usage, exit 129), or
      // none there (127). Merging one process per merge says what is wrong, if anything is.
      if (this.answered === 0) {
        this.giveUp();
        return;
      }
      this.failAll(new GitError(ARGS, code ?? undefined, this.stderr, this.git.cwd));
    });
    holdOpen(child, false);
    this.child = child;
    return child;
  }

  /**
   * Answer the merges whose output is complete. Each is `CLEAN NUL TREE NUL`; a conflict then has
   * its stage lines, an empty field, and its messages (`COUNT NUL PATH... NUL TYPE NUL TEXT NUL`);
   * an empty field ends every answer.
   */
  private drain(): void {
    let at = 0;
    while (this.queue.length > 0) {
      const end = answerEnd(this.fields, at);
      if (end === null) break;
      const clean = this.fields[at] === '1';
      const tree = this.fields[at + 1] as string;
      const result: MergeTreeResult = clean
        ? { clean: true, tree }
        : { clean: false, ...parseMergeTreeOutput(this.fields.slice(at + 1, end.last).join('\0')) };
      at = end.next;
      this.answered++;
      settle(this.queue.shift() as Pending, result);
    }
    if (at > 0) this.fields = this.fields.slice(at);
    if (this.queue.length === 0 && this.child) holdOpen(this.child, false);
    this.watchStall();
  }

  /**
   * Part of an answer came and the rest does not: git is done with it (it writes a merge's output
   * at once), so the output is one this parser cannot frame. That is an error, never a wait.
   */
  private watchStall(): void {
    clearTimeout(this.stall);
    if (this.queue.length === 0 || (this.fields.length === 0 && this.partial === '')) return;
    this.stall = setTimeout(() => {
      this.failAll(
        new GitError(
          ARGS,
          undefined,
          `merge-tree's answer could not be read (no end after ${this.stallMs / 1000} s): ${JSON.stringify(
            [...this.fields, this.partial].join('\0').slice(0, 400),
          )}`,
          this.git.cwd,
        ),
      );
      this.close();
    }, this.stallMs);
    this.stall.unref();
  }

  private failAll(error: unknown): void {
    for (const entry of this.queue.splice(0)) {
      if (entry.settled) continue;
      entry.settled = true;
      entry.reject(error);
    }
  }
}

/**
 * Where the answer starting at `at` ends: `last`, the index after its last field, and `next`, where
 * the next answer starts; null if it has not all come. The empty field that ends an answer is
 * replaced, after a submodule conflict (git 2.39), by free text where a message count belongs.
 */
function answerEnd(fields: string[], at: number): { last: number; next: number } | null {
  if (fields.length < at + 3) return null;
  if (fields[at] === '1') return fields[at + 2] === '' ? { last: at + 2, next: at + 3 } : null;
  let i = at + 2;
  // Stage lines, up to an empty field.
  while (i < fields.length && fields[i] !== '') i++;
  i++;
  // Messages, each COUNT, its paths, TYPE and TEXT, up to an empty field or free text.
  while (i < fields.length && fields[i] !== '') {
    if (!/^\d+$/.test(fields[i] as string)) return { last: i + 1, next: i + 1 };
    i += Number(fields[i]) + 3;
  }
  return i < fields.length ? { last: i, next: i + 1 } : null;
}

const stdbufOn = new Map<string, string | null>();

/** coreutils' `stdbuf` on the PATH, or null. */
function findStdbuf(path = ''): string | null {
  let found = stdbufOn.get(path);
  if (found === undefined) {
    found = null;
    for (const dir of path.split(delimiter).filter(Boolean)) {
      try {
        accessSync(join(dir, 'stdbuf'), constants.X_OK);
        found = join(dir, 'stdbuf');
        break;
      } catch {
        // not here
      }
    }
    stdbufOn.set(path, found);
  }
  return found;
}

function settle(entry: Pending, result: MergeTreeResult | null): void {
  if (entry.settled) return;
  entry.settled = true;
  entry.resolve(result);
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
