/**
 * `npm run bench:distributed [-- --quick]`: one shared merge driven by 1, 2 and 4 workers, each a
 * process in its own clone of one bare remote (bench/_distributed-worker.ts: records, engine refs
 * and claims go through the remote), on the generated grid of bench/drive.ts (default 300 x 80
 * commits, 150 conflicts; `--quick`: 60 x 20, 20 conflicts) with a zero-delay keep-both model and
 * a check that takes a fixed time (BENCH_CHECK_SECONDS, default 1; run locally by each worker, not
 * through a CI hook). Printed per worker count: the wall time until the merge is finished, the
 * speed-up against 1 worker, the conflicts each worker resolved, and the widest frontier (blocked
 * cells at once) a worker saw, which bounds the speed-up. Exits 1 when the workers' final trees differ.
 * Environment: BENCH_GRID=N1xN2, BENCH_CONFLICTS, BENCH_FILES, BENCH_WORKERS (default 1,2,4).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchGitEnv } from './_env.js';
import { conflictPairs, generateGrid } from './_grid.js';

const quick = process.argv.includes('--quick');
const [N1, N2] = (process.env.BENCH_GRID ?? (quick ? '60x20' : '300x80')).split('x').map(Number) as [number, number];
const CONFLICTS = Number(process.env.BENCH_CONFLICTS ?? (quick ? 20 : 150));
const FILES = Number(process.env.BENCH_FILES ?? (quick ? 500 : 3000));
const CHECK_SECONDS = process.env.BENCH_CHECK_SECONDS ?? '1';
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
const here = dirname(fileURLToPath(import.meta.url));

interface WorkerResult {
  dir: string;
  doneAt: number;
  widest: number;
  resolved: number;
  tree: string;
}

function worker(dir: string, role: 'start' | 'join' | 'solo'): Promise<WorkerResult> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(here, '_distributed-worker.ts'), dir, role, CHECK_SECONDS],
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

/** One drive with `n` workers on a fresh bare remote of the grid; wall time until the first finishes. */
async function drive(grid: string, n: number, shared = true): Promise<{ ms: number; results: WorkerResult[] }> {
  const root = mkdtempSync(join(tmpdir(), `splintercat-distributed-${n}-`));
  try {
    const bare = join(root, 'shared.git');
    execFileSync('git', ['clone', '-q', '--bare', grid, bare], { env: benchGitEnv });
    const dirs = Array.from({ length: n }, (_, k) => {
      const dir = join(root, `w${k}`);
      execFileSync('git', ['clone', '-q', bare, dir], { env: benchGitEnv });
      return dir;
    });
    const t0 = Date.now();
    const results = await Promise.all(dirs.map((dir, k) => worker(dir, !shared ? 'solo' : k === 0 ? 'start' : 'join')));
    return { ms: Math.min(...results.map((r) => r.doneAt)) - t0, results };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const grid = mkdtempSync(join(tmpdir(), 'splintercat-distributed-grid-'));
  try {
    generateGrid(grid, N1, N2, conflictPairs(N1, N2, CONFLICTS), FILES);
    console.log(
      `distributed drive: ${N1} x ${N2} grid, ${CONFLICTS} conflicts, check ${CHECK_SECONDS}s, workers ${WORKERS.join('/')}`,
    );
    const solo = await drive(grid, 1, false);
    console.log(
      `  not shared (merge without --remote): ${(solo.ms / 1000).toFixed(1)}s wall, the baseline of what sharing costs`,
    );
    let base: number | null = null;
    const trees = new Set<string>();
    for (const n of WORKERS) {
      const { ms, results } = await drive(grid, n);
      base ??= ms;
      for (const r of results) trees.add(r.tree);
      const widest = Math.max(...results.map((r) => r.widest));
      console.log(
        `  ${n} worker(s): ${(ms / 1000).toFixed(1)}s wall, speed-up ${(base / ms).toFixed(2)}x vs 1 worker, ` +
          `resolved per worker ${results.map((r) => r.resolved).join('/')}, widest frontier ${widest}`,
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
