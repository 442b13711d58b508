import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { SplintercatError, UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import { processAlive } from '../util/leftovers.js';
import { backupPath, fsyncDir } from './json-file.js';

/** The files of one run, under `<git common dir>/splintercat/NAME/`. */
export interface RunPaths {
  dir: string;
  state: string;
  backup: string;
  journal: string;
  lock: string;
  /** What this clone refused of a shared run's remote objects (JSON lines), for `status`. */
  rejected: string;
}

/** Who holds a run: written into the `lock` file. */
export interface LockInfo {
  pid: number;
  host: string;
  /** ISO time the holder took the lock. */
  startedAt: string;
  /** Random token so a holder only ever releases its own lock. */
  token: string;
}

export type LockStatus =
  | { state: 'free' }
  | { state: 'held'; info: LockInfo }
  /** The holder's process is gone (same host, pid not alive): safe to take over. */
  | { state: 'stale'; info: LockInfo }
  /** The lock file exists but cannot be read (not written by splintercat, or edited). */
  | { state: 'unreadable'; detail: string };

export type AcquireResult =
  { ok: true; lock: RunLock; tookOverStale: LockInfo | null } | { ok: false; holder: LockInfo };

export interface RunListing {
  name: string;
  dir: string;
  hasState: boolean;
  hasBackup: boolean;
  hasJournal: boolean;
  lock: LockStatus;
}

export interface RunStoreDeps {
  clock?: Clock;
  /** Injected for tests; default os.hostname() and process.pid. */
  host?: string;
  pid?: number;
  /** Default: `process.kill(pid, 0)` semantics. */
  isAlive?: (pid: number) => boolean;
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Run names become directory and ref names: keep them to a safe alphabet. */
export function validateRunName(name: string): void {
  if (!namePattern.test(name) || name.includes('..') || name.endsWith('.lock') || name.length > 100) {
    throw new UsageError('run_name_invalid', {
      what: `'${name}' is not a valid merge name`,
      why: 'Merge names are used as directory and git ref names',
      fix: 'Use letters, digits, ".", "_" and "-" only, starting with a letter or digit (e.g. --name upstream-2024-06)',
    });
  }
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (
      typeof v.pid === 'number' &&
      typeof v.host === 'string' &&
      typeof v.startedAt === 'string' &&
      typeof v.token === 'string'
    ) {
      return { pid: v.pid, host: v.host, startedAt: v.startedAt, token: v.token };
    }
  } catch {
    // fall through
  }
  return undefined;
}

/** A held run lock. `release()` removes it only while it is still ours. */
export class RunLock {
  private released = false;

  constructor(
    readonly path: string,
    readonly info: LockInfo,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return;
    }
    if (parseLock(text)?.token === this.info.token) unlinkSync(this.path);
  }
}

/**
 * The directory of every run: `<git common dir>/splintercat/NAME/` with `state.json`,
 * `state.json.bak`, `events.jsonl` and `lock`. The lock keeps two processes from driving
 * the same merge; a lock whose process died (kill -9, reboot) is stale and taken over.
 */
export class RunStore {
  private readonly clock: Clock;
  private readonly host: string;
  private readonly pid: number;
  private readonly isAlive: (pid: number) => boolean;

  constructor(
    readonly root: string,
    deps: RunStoreDeps = {},
  ) {
    this.clock = deps.clock ?? systemClock;
    this.host = deps.host ?? hostname();
    this.pid = deps.pid ?? process.pid;
    this.isAlive = deps.isAlive ?? processAlive;
  }

  /** The store of the repository `git` works in (shared by all its worktrees). */
  static async forRepo(git: Git, deps: RunStoreDeps = {}): Promise<RunStore> {
    return new RunStore(join(await git.gitDir(true), 'splintercat'), deps);
  }

  paths(name: string): RunPaths {
    validateRunName(name);
    const dir = join(this.root, name);
    const state = join(dir, 'state.json');
    return {
      dir,
      state,
      backup: backupPath(state),
      journal: join(dir, 'events.jsonl'),
      lock: join(dir, 'lock'),
      rejected: join(dir, 'rejected.jsonl'),
    };
  }

  /** Create the run directory (idempotent) and return its paths. */
  ensure(name: string): RunPaths {
    const paths = this.paths(name);
    if (!existsSync(paths.dir)) {
      mkdirSync(paths.dir, { recursive: true });
      fsyncDir(this.root);
    }
    return paths;
  }

  /** Whether a run of this name has any durable trace (state, backup or journal). */
  exists(name: string): boolean {
    const p = this.paths(name);
    return existsSync(p.state) || existsSync(p.backup) || existsSync(p.journal);
  }

  /** Every run directory, sorted by name. Directories with no state, backup or journal are skipped. */
  list(): RunListing[] {
    if (!existsSync(this.root)) return [];
    const out: RunListing[] = [];
    for (const entry of readdirSync(this.root, { withFileTypes: true })) {
      if (!entry.isDirectory() || !namePattern.test(entry.name)) continue;
      const p = this.paths(entry.name);
      const listing: RunListing = {
        name: entry.name,
        dir: p.dir,
        hasState: existsSync(p.state),
        hasBackup: existsSync(p.backup),
        hasJournal: existsSync(p.journal),
        lock: this.lockStatus(entry.name),
      };
      if (listing.hasState || listing.hasBackup || listing.hasJournal) out.push(listing);
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Read the lock without taking it. */
  lockStatus(name: string): LockStatus {
    return this.lockStatusAt(this.paths(name).lock);
  }

  private lockStatusAt(path: string): LockStatus {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'free' };
      return { state: 'unreadable', detail: (error as Error).message };
    }
    const info = parseLock(text);
    if (info === undefined) return { state: 'unreadable', detail: `${path} is not a splintercat lock file` };
    if (info.host === this.host && !this.isAlive(info.pid)) return { state: 'stale', info };
    return { state: 'held', info };
  }

  /**
   * Take the run's lock. The lock file is written whole to a temp file and hard-linked into
   * place, which fails if a lock exists: there is never a half-written lock. A stale lock
   * (dead pid on this host) is removed and taken over; a live one is reported as `{ok:false}`.
   */
  acquire(name: string): AcquireResult {
    const paths = this.ensure(name);
    const info: LockInfo = {
      pid: this.pid,
      host: this.host,
      startedAt: this.clock.now().toISOString(),
      token: `${this.pid}-${Math.random().toString(36).slice(2, 12)}`,
    };
    this.removeOrphanLockTemps(paths.dir);
    const tmp = `${paths.lock}.${info.token}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(info)}\n`, { mode: 0o644 });
    let tookOverStale: LockInfo | null = null;
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          linkSync(tmp, paths.lock);
          fsyncDir(paths.dir);
          return { ok: true, lock: new RunLock(paths.lock, info), tookOverStale };
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const status = this.lockStatusAt(paths.lock);
        if (status.state === 'held') return { ok: false, holder: status.info };
        if (status.state === 'unreadable') {
          throw new SplintercatError('lock_unreadable', {
            what: `The lock of merge '${name}' cannot be read`,
            why: status.detail,
            fix: [
              `If no splintercat process is running on this merge, delete ${paths.lock}`,
              'or run `splintercat doctor --repair`',
            ],
            where: paths.lock,
          });
        }
        if (status.state === 'stale') {
          tookOverStale = status.info;
          // Only remove the exact stale lock we inspected; a new holder may have replaced it.
          const again = this.lockStatusAt(paths.lock);
          if (again.state === 'stale' && again.info.token === status.info.token) rmSync(paths.lock, { force: true });
        }
      }
      const status = this.lockStatusAt(paths.lock);
      if (status.state === 'held') return { ok: false, holder: status.info };
      throw new SplintercatError('lock_contended', {
        what: `Could not take the lock of merge '${name}'`,
        why: 'Another process kept replacing the lock file',
        fix: 'Check for other splintercat processes on this repository and retry',
        where: paths.lock,
      });
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  /** `lock.PID-xxx.tmp` files left by a process killed while taking the lock. */
  private removeOrphanLockTemps(dir: string): void {
    for (const entry of readdirSync(dir)) {
      const m = /^lock\.(\d+)-[a-z0-9]+\.tmp$/.exec(entry);
      if (m !== null && Number(m[1]) !== this.pid && !this.isAlive(Number(m[1])))
        rmSync(join(dir, entry), { force: true });
    }
  }

  /** Remove a stale or unreadable lock (doctor --repair). Returns whether one was removed; never removes a live one. */
  breakStaleLock(name: string): boolean {
    const status = this.lockStatus(name);
    if (status.state !== 'stale' && status.state !== 'unreadable') return false;
    rmSync(this.paths(name).lock, { force: true });
    return true;
  }

  /**
   * Delete a run's directory. Refuses while a live process holds its lock; returns what was
   * removed. Worktrees registered with git under the directory are the caller's to remove first.
   */
  remove(name: string): { ok: true; removed: boolean } | { ok: false; reason: 'locked'; holder: LockInfo } {
    const paths = this.paths(name);
    if (!existsSync(paths.dir)) return { ok: true, removed: false };
    const status = this.lockStatus(name);
    if (status.state === 'held' && !(status.info.pid === this.pid && status.info.host === this.host)) {
      return { ok: false, reason: 'locked', holder: status.info };
    }
    rmSync(paths.dir, { recursive: true, force: true });
    if (existsSync(this.root) && statSync(this.root).isDirectory()) fsyncDir(this.root);
    return { ok: true, removed: true };
  }
}
