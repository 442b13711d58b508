/**
 * The fork-sync drive: `splintercat merge` on the sync fixture as a person drives it, one CLI
 * process per command, offline (no model: the ladder, then the person). At each hand-off the
 * scripted person reads `status --json`, answers every file of every conflict handed over with
 * `splintercat take theirs FILE` or `take ours FILE` (alternating, as the hand-off prints them) in
 * its worktree, then runs `splintercat continue`. Measured: the disk of the run's worktrees
 * (sampled), the estimates `status --json` gives at each hand-off (read by several possible field
 * names: the estimates are being reworked), the wall time of each `continue`.
 */
import { execFile, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { benchGitEnv } from '../_env.js';
import { cliMain } from '../_cli.js';

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
  ms: number;
}

/** One CLI command, asynchronously (the disk sampler keeps running meanwhile). */
export function cli(cwd: string, args: string[]): Promise<CliRun> {
  return new Promise((resolvePromise) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cliMain, ...args], { cwd, env: benchGitEnv });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('close', (code) =>
      resolvePromise({
        code,
        out: Buffer.concat(out).toString('utf8'),
        err: Buffer.concat(err).toString('utf8'),
        ms: performance.now() - t0,
      }),
    );
  });
}

/** Kilobytes under `dir` (du -sk), 0 when it does not exist. */
export function du(dir: string, exclude?: string): Promise<number> {
  return new Promise((resolvePromise) => {
    const args = ['-sk', ...(exclude ? [`--exclude=${exclude}`] : []), dir];
    execFile('du', args, { encoding: 'utf8' }, (error, stdout) =>
      resolvePromise(error ? 0 : Number(/^(\d+)/.exec(stdout)?.[1] ?? 0)),
    );
  });
}

function entries(dir: string): number {
  try {
    return readdirSync(dir).length;
  } catch {
    return 0;
  }
}

/** Samples `du` of a directory until stopped; one sample at a time, `everyMs` apart. */
class DiskSampler {
  peakKb = 0;
  /** The most worktrees seen at once. */
  peakCount = 0;
  /** The largest kilobytes per worktree of one sample (what a worktree costs on disk at worst). */
  worstPerWorktreeKb = 0;
  samples = 0;
  private stopped = false;
  private readonly done: Promise<void>;

  constructor(
    private readonly dir: string,
    private readonly everyMs: number,
  ) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      // Counted on both sides of the du: a worktree removed (or added) while du walks the directory
      // would otherwise charge its bytes to the worktrees left.
      const before = entries(this.dir);
      const kb = await du(this.dir);
      const count = Math.max(before, entries(this.dir));
      this.peakKb = Math.max(this.peakKb, kb);
      this.peakCount = Math.max(this.peakCount, count);
      if (count > 0) this.worstPerWorktreeKb = Math.max(this.worstPerWorktreeKb, kb / count);
      this.samples++;
      await new Promise((r) => setTimeout(r, this.everyMs));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}

/** The first number found under any of `names` in `obj` (depth-first, bounded), or null. */
function findNumber(obj: unknown, names: readonly string[], depth = 3): number | null {
  if (typeof obj !== 'object' || obj === null || depth < 0) return null;
  const rec = obj as Record<string, unknown>;
  for (const n of names) if (typeof rec[n] === 'number' && Number.isFinite(rec[n])) return rec[n];
  for (const v of Object.values(rec)) {
    const found = findNumber(v, names, depth - 1);
    if (found !== null) return found;
  }
  return null;
}

/** What `status --json` says at a hand-off, by the field names it has had (null: absent). */
export interface Estimate {
  /** Since the drive started. */
  atMs: number;
  /** Conflicts met so far (done + open). */
  met: number | null;
  /** Conflicts expected in all. */
  expected: number | null;
  /** Time left, in milliseconds. */
  leftMs: number | null;
}

const EXPECTED = ['expected', 'expectedConflicts', 'conflictsExpected', 'expectedTotal', 'total'];
const LEFT_MS = ['leftMs', 'timeLeftMs', 'remainingMs', 'etaMs', 'msLeft'];

function readEstimate(status: Record<string, unknown>, atMs: number): Estimate {
  const progress = (status.progress ?? status.outlook ?? status.estimate ?? null) as Record<string, unknown> | null;
  const handoff = (status.handoff ?? null) as { expected?: { total?: number } } | null;
  const conflicts = (status.conflicts ?? null) as { total?: number } | null;
  return {
    atMs,
    met: typeof conflicts?.total === 'number' ? conflicts.total : null,
    expected:
      findNumber(progress, EXPECTED.slice(0, -1)) ??
      (typeof handoff?.expected?.total === 'number' ? handoff.expected.total : null),
    leftMs: findNumber(progress, LEFT_MS),
  };
}

interface HandedConflict {
  conflict: string;
  worktree: string;
  files: Array<{ path: string }>;
}

export interface SyncDrive {
  outcome: string;
  wallMs: number;
  estimates: Estimate[];
  /** Wall time of each `continue` (the person waits for it), in order. */
  continues: number[];
  /** Conflicts handed over at each hand-off. */
  handed: number[];
  /** `take` commands the person ran. */
  takes: number;
  takeMs: number;
  peakDiskKb: number;
  /** The most worktrees seen at once by the sampler. */
  peakWorktrees: number;
  /** The largest kilobytes per worktree of one sample. */
  worstPerWorktreeKb: number;
  samples: number;
  /** Real conflicts at the end (status --json). */
  conflicts: number | null;
  /** Hunks by rung at the end, `rung n, ...` (status --json), null when it does not say. */
  rungs: string | null;
}

/** Drive `merge upstream --into main` (run `name`) in `repo` to the end, the scripted person answering. */
export async function driveSync(repo: string, worktrees: string, name: string, maxRounds = 1000): Promise<SyncDrive> {
  const disk = new DiskSampler(worktrees, 1000);
  const estimates: Estimate[] = [];
  const continues: number[] = [];
  const handed: number[] = [];
  let takes = 0;
  let takeMs = 0;
  let side = 0;
  const t0 = performance.now();
  let run = await cli(repo, ['merge', 'upstream', '--into', 'main', '--name', name]);
  try {
    for (let round = 0; round < maxRounds && run.code === 3; round++) {
      const status = await cli(repo, ['status', '--json', '--name', name]);
      const data = JSON.parse(status.out) as Record<string, unknown>;
      estimates.push(readEstimate(data, performance.now() - t0));
      const conflicts = ((data.handoff as { conflicts?: HandedConflict[] } | null)?.conflicts ?? []).filter(
        (c) => c.worktree,
      );
      handed.push(conflicts.length);
      const tt = performance.now();
      for (const c of conflicts)
        for (const f of c.files) {
          const answer = side++ % 2 === 0 ? 'theirs' : 'ours';
          const took = await cli(c.worktree, ['take', answer, f.path]);
          takes++;
          if (took.code !== 0) throw new Error(`take ${answer} ${f.path} in ${c.conflict}: ${took.err.slice(-800)}`);
        }
      takeMs += performance.now() - tt;
      run = await cli(repo, ['continue', '--name', name]);
      continues.push(run.ms);
      const e = estimates.at(-1);
      process.stderr.write(
        `  hand-off ${round + 1} at ${((e?.atMs ?? 0) / 1000) | 0} s: ${conflicts.length} conflict(s), met ${e?.met ?? 'n/a'}, expected ${e?.expected ?? 'n/a'}, left ${e?.leftMs ?? 'n/a'} ms; continue ${(run.ms / 1000).toFixed(1)} s, exit ${run.code}\n`,
      );
    }
    const wallMs = performance.now() - t0;
    await disk.stop();
    const end = JSON.parse((await cli(repo, ['status', '--json', '--name', name])).out) as {
      conflicts?: { total?: number; hunksByRung?: Record<string, number> };
    };
    const byRung = Object.entries(end.conflicts?.hunksByRung ?? {}).filter(([, k]) => k > 0);
    return {
      outcome:
        run.code === 0 ? 'done' : `exit ${run.code}: ${(run.err || run.out).trim().split('\n').slice(-3).join(' / ')}`,
      wallMs,
      estimates,
      continues,
      handed,
      takes,
      takeMs,
      peakDiskKb: disk.peakKb,
      peakWorktrees: disk.peakCount,
      worstPerWorktreeKb: disk.worstPerWorktreeKb,
      samples: disk.samples,
      conflicts: end.conflicts?.total ?? null,
      rungs: byRung.length > 0 ? byRung.map(([r, k]) => `${r} ${k}`).join(', ') : null,
    };
  } finally {
    await disk.stop();
  }
}
