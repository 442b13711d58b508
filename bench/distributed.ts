/**
 * `npm run bench:distributed [-- --quick]`: one shared merge driven by 1, 2 and 4 workers, each a
 * process in its own clone of one bare remote (bench/_distributed-worker.ts: records, engine refs
 * and claims go through the remote, and a worker that finds every open conflict held waits for the
 * others, `sync.wait`), on the generated grid of bench/drive.ts (default 300 x 80 commits, 150
 * conflicts; `--quick`: 60 x 20, 20 conflicts) with a zero-delay keep-both model. The checks go
 * through the CI hook: `check.runner.remote: origin`, and the bare remote's `post-receive` hook as
 * `splintercat init --ci hook` writes it runs each request in a clone of its own with `splintercat
 * check-report`; the check takes BENCH_CHECK_SECONDS (default 10; `--check-seconds 2,10` runs each).
 * Printed per worker count: the wall time until the merge is finished, the conflicts each worker resolved, the checks run through the hook and reused from
 * another worker's result, the CPU seconds per conflict (the workers with their git processes, and
 * the whole machine, hook jobs included), and the bound the frontier puts on the speed-up (the
 * longest chain of conflicts that wait for each other, and the best schedule of that many workers);
 * then the speed-up of each count against the fewest workers run (1 by default).
 * Exits 1 when the workers' final trees differ.
 * Environment: BENCH_GRID=N1xN2, BENCH_CONFLICTS, BENCH_FILES, BENCH_WORKERS (default 1,2,4), BENCH_UNSHARED=0
 * (no drive without --remote), BENCH_CPU_PROF=DIR (a V8 CPU profile of each worker there), BENCH_KEEP=1
 * (the drives' clones and remote are kept, their directories printed).
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliMain, ensureBuilt } from './_cli.js';
import { benchGitEnv } from './_env.js';
import { frontierBound } from './_frontier.js';
import { conflictPairs, generateGrid } from './_grid.js';

const quick = process.argv.includes('--quick');
const [N1, N2] = (process.env.BENCH_GRID ?? (quick ? '60x20' : '300x80')).split('x').map(Number) as [number, number];
const CONFLICTS = Number(process.env.BENCH_CONFLICTS ?? (quick ? 20 : 150));
const FILES = Number(process.env.BENCH_FILES ?? (quick ? 500 : 3000));
const flag = process.argv.indexOf('--check-seconds');
const CHECK_SECONDS = (flag > 0 ? (process.argv[flag + 1] as string) : (process.env.BENCH_CHECK_SECONDS ?? '10')).split(
  ',',
);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
const here = dirname(fileURLToPath(import.meta.url));

interface WorkerResult {
  dir: string;
  doneAt: number;
  widest: number;
  resolved: number;
  tree: string;
  checksRun: number;
  checksReused: number;
  /** Mean wall time of a check run through the hook, request to result. */
  checkMs: number;
  /** CPU seconds of the worker's node process, and of the git processes it waited for. */
  cpuSelf: number;
  cpuChildren: number;
  /** When the worker process started (ms since the epoch). */
  startedAt: number;
}

/** CPU seconds so far: this process's waited-for children (workers and their git), and the whole machine. */
function cpuNow(): { children: number; machine: number } {
  const tick = 100; // USER_HZ on Linux
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) / tick;
  const cpu = (readFileSync('/proc/stat', 'utf8').split('\n')[0] as string).split(/\s+/).slice(1).map(Number);
  const machine = (cpu.reduce((a, b) => a + b, 0) - (cpu[3] as number) - (cpu[4] as number)) / tick;
  return { children, machine };
}

function worker(dir: string, role: 'start' | 'join' | 'solo', checkSeconds: string): Promise<WorkerResult> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []),
        '--import',
        'tsx',
        join(here, '_distributed-worker.ts'),
        dir,
        role,
        checkSeconds,
      ],
      { env: benchGitEnv, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) =>
      code === 0
        ? done(JSON.parse(out.trim().split('\n').at(-1) as string) as WorkerResult)
        : fail(new Error(`worker ${dir} exited ${code}`)),
    );
  });
}

/**
 * The hook and its job as `splintercat init --ci hook` writes them, copied into the bare remote's hooks as it says.
 * Written by the built CLI, as an installed one would: each job then starts `node dist/cli/main.js`.
 */
function installHook(bare: string, scratch: string): void {
  execFileSync('git', ['clone', '-q', bare, scratch], { env: benchGitEnv });
  const out = join(scratch, 'ci');
  execFileSync(process.execPath, [cliMain, 'init', '--ci', 'hook', '--remote', 'origin', '--out', out], {
    cwd: scratch,
    env: benchGitEnv,
    stdio: 'ignore',
  });
  for (const file of ['post-receive', 'splintercat-check-job'])
    copyFileSync(join(out, file), join(bare, 'hooks', file));
}

/** Resolves once every job the hook started has printed its `done` line: how many it started. */
async function jobsDone(bare: string): Promise<number> {
  const log = join(bare, 'splintercat-checks.log');
  for (;;) {
    const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
    const started = (text.match(/^splintercat-check-job: \S+ \(pid/gm) ?? []).length;
    if ((text.match(/^splintercat-check-job: \S+ done/gm) ?? []).length >= started) return started;
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Drive {
  ms: number;
  results: WorkerResult[];
  /** Checks the hook's jobs ran. */
  jobs: number;
  cpu: { children: number; machine: number };
}

/** One drive with `n` workers on a fresh bare remote of the grid; wall time until the first finishes. */
async function drive(grid: string, n: number, checkSeconds: string, shared = true): Promise<Drive> {
  const dir = mkdtempSync(join(tmpdir(), `splintercat-distributed-${n}-`));
  try {
    const bare = join(dir, 'shared.git');
    execFileSync('git', ['clone', '-q', '--bare', grid, bare], { env: benchGitEnv });
    installHook(bare, join(dir, 'setup'));
    const dirs = Array.from({ length: n }, (_, k) => {
      const clone = join(dir, `w${k}`);
      execFileSync('git', ['clone', '-q', bare, clone], { env: benchGitEnv });
      return clone;
    });
    const [cpu0, t0] = [cpuNow(), Date.now()];
    const roles = dirs.map((_, k) => (!shared ? 'solo' : k === 0 ? 'start' : 'join') as 'start' | 'join' | 'solo');
    const results = await Promise.all(dirs.map((clone, k) => worker(clone, roles[k] as 'solo', checkSeconds)));
    const jobs = await jobsDone(bare);
    const cpu1 = cpuNow();
    const cpu = { children: cpu1.children - cpu0.children, machine: cpu1.machine - cpu0.machine };
    return { ms: Math.min(...results.map((r) => r.doneAt)) - t0, results, jobs, cpu };
  } finally {
    if (process.env.BENCH_KEEP === '1') console.log(`    (kept: ${dir})`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** Checks run (the hook's jobs) and reused (the checks the workers recorded beyond those), hook time, CPU. */
function describe(d: Drive): string {
  const sum = (f: (r: WorkerResult) => number): number => d.results.reduce((a, r) => a + f(r), 0);
  const waited = sum((r) => r.checksRun);
  const hook = waited === 0 ? 0 : sum((r) => r.checkMs * r.checksRun) / waited / 1000;
  const recorded = waited + sum((r) => r.checksReused);
  return (
    `checks run/reused ${d.jobs}/${recorded - d.jobs} (${hook.toFixed(1)}s each through the hook), ` +
    `CPU s per conflict ${(d.cpu.children / CONFLICTS).toFixed(2)} workers, ${(d.cpu.machine / CONFLICTS).toFixed(2)} machine; ` +
    `CPU s per worker (node + git) ${d.results.map((r) => `${r.cpuSelf.toFixed(1)}+${r.cpuChildren.toFixed(1)}`).join(' ')}; ` +
    `per worker, s waiting for its checks of s alive ${d.results.map((r) => `${((r.checkMs * r.checksRun) / 1000).toFixed(0)}/${((r.doneAt - r.startedAt) / 1000).toFixed(0)}`).join(' ')}`
  );
}

async function main(): Promise<void> {
  ensureBuilt();
  const grid = mkdtempSync(join(tmpdir(), 'splintercat-distributed-grid-'));
  try {
    const pairs = conflictPairs(N1, N2, CONFLICTS);
    generateGrid(grid, N1, N2, pairs, FILES);
    const bound = frontierBound(pairs, WORKERS);
    const one = bound.rounds.get(1) ?? CONFLICTS;
    console.log(
      `distributed drive: ${N1} x ${N2} grid, ${CONFLICTS} conflicts, checks through the CI hook, workers ${WORKERS.join('/')}`,
    );
    console.log(
      `  frontier: widest ${bound.widest}, longest chain of conflicts waiting for each other ${bound.chain}: ` +
        WORKERS.map((w) => `${w} worker(s) at most ${(one / (bound.rounds.get(w) ?? one)).toFixed(2)}x`).join(', ') +
        ' (every conflict the same cost, no overhead)',
    );
    const trees = new Set<string>();
    for (const seconds of CHECK_SECONDS) {
      console.log(`  check ${seconds}s:`);
      if (process.env.BENCH_UNSHARED !== '0') {
        const solo = await drive(grid, 1, seconds, false);
        console.log(`    not shared (merge without --remote): ${(solo.ms / 1000).toFixed(1)}s wall, ${describe(solo)}`);
      }
      // Against the first worker count given (1 by default; BENCH_WORKERS=4,1 sees the 4-worker drive first).
      const walls = new Map<number, number>();
      for (const n of WORKERS) {
        const d = await drive(grid, n, seconds);
        walls.set(n, d.ms);
        for (const r of d.results) trees.add(r.tree);
        console.log(
          `    ${n} worker(s): ${(d.ms / 1000).toFixed(1)}s wall, ` +
            `resolved per worker ${d.results.map((r) => r.resolved).join('/')}, widest frontier seen ${Math.max(...d.results.map((r) => r.widest))}, ${describe(d)}`,
        );
      }
      const one = walls.get(Math.min(...walls.keys())) as number;
      console.log(
        `    speed-up vs ${Math.min(...walls.keys())} worker(s): ${[...walls].map(([n, ms]) => `${n}: ${(one / ms).toFixed(2)}x`).join(', ')}`,
      );
    }
    if (trees.size !== 1) {
      console.error(`  the workers' final trees differ: ${[...trees].join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(grid, { recursive: true, force: true });
  }
}

await main();
