/**
 * `npm run bench:engine`: time to the first conflict on generated 40x40 grids with three conflicts,
 * splintercat's engine vs git-imerge 1.2.0, measured in the same run, printed as ratios: the engine
 * in-process (`IncrementalMerge.start` + autofill), and `imerge start` as a user runs it (one process
 * of the built CLI, `node dist/cli/main.js imerge start`, against one `git-imerge start`, each on
 * its own fresh copy of the repository; issue 14's targets: >= 10x at 5,000 files, >= 40x at 50,000).
 * Sizes (files in the tree): BENCH_SIZES=33,5000,50000 (default); `--quick`: 33,5000.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Git } from '../src/git/index.js';
import { GitMerger, IncrementalMerge } from '../src/imerge/index.js';
import { cliMain, ensureBuilt } from './_cli.js';
import { benchGitEnv } from './_env.js';

const env = benchGitEnv;

const N = 40;
/** (main commit, feature commit) pairs that rewrite the same line. */
const CONFLICTS: [number, number][] = [
  [12, 30],
  [25, 14],
  [36, 6],
];

function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd: dir, env, input, encoding: 'utf8', maxBuffer: 1 << 30 });
}

/** A repo with `files` files at the base, N commits on main and on feature, via fast-import. */
function generate(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-'));
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'gc.auto', '0']);
  const out: string[] = [];
  const data = (s: string): string => `data ${Buffer.byteLength(s)}\n${s}\n`;
  let t = 1_700_000_000;
  const commit = (ref: string, mark: number, from: number | null, msg: string, mods: [string, string][]): void => {
    out.push(`commit ${ref}\nmark :${mark}\ncommitter Bench <bench@example.com> ${t++} +0000\n${data(msg)}`);
    if (from !== null) out.push(`from :${from}\n`);
    for (const [p, c] of mods) out.push(`M 100644 inline ${p}\n${data(c)}`);
  };
  const base: [string, string][] = [];
  for (let k = 0; k < files - 1; k++) base.push([`src/d${k % 100}/file-${k}.txt`, `file ${k}\n`]);
  const lines = CONFLICTS.map((_, k) => `line ${k}`);
  base.push(['shared.txt', `${lines.join('\n')}\n`]);
  commit('refs/heads/main', 1, null, 'base', base);
  for (const [ref, side, markBase] of [
    ['refs/heads/main', 0, 100],
    ['refs/heads/feature', 1, 1000],
  ] as const) {
    const state = [...lines];
    for (let i = 1; i <= N; i++) {
      CONFLICTS.forEach((c, k) => {
        if (c[side] === i) state[k] = `line ${k} changed on ${ref} by ${i}`;
      });
      const mods: [string, string][] = [
        [`${ref.slice(11)}/c${i}.txt`, `${i}\n`],
        ['shared.txt', `${state.join('\n')}\n`],
      ];
      commit(ref, markBase + i, i === 1 ? 1 : markBase + i - 1, `${ref.slice(11)} ${i}`, mods);
    }
  }
  git(dir, ['fast-import', '--quiet'], out.join(''));
  git(dir, ['checkout', '-q', '-f', 'main']);
  return dir;
}

async function timeSplintercat(
  dir: string,
): Promise<{ ms: number; next: [number, number] | null; merges: number; log: [string, string][] }> {
  const g = new Git({ cwd: dir, env });
  try {
    const t0 = performance.now();
    const im = await IncrementalMerge.start(g, { name: 'sc', tip2: 'feature' });
    const merger = new GitMerger(g);
    const r = await im.autofill({ jobs: 2, merger });
    return { ms: performance.now() - t0, next: r.next, merges: r.merges, log: merger.log };
  } finally {
    g.close();
  }
}

/** The same merges as one `git merge-tree --write-tree` + `git commit-tree` process pair each, sequentially. */
function timeRawReplay(dir: string, log: [string, string][]): number {
  const t0 = performance.now();
  for (const [c1, c2] of log) {
    const r = spawnSync('git', ['merge-tree', '--write-tree', c1, c2], { cwd: dir, env, encoding: 'utf8' });
    const tree = r.stdout.split('\n')[0] as string;
    if (r.status === 0) spawnSync('git', ['commit-tree', tree, '-p', c1, '-p', c2, '-m', 'replay'], { cwd: dir, env });
  }
  return performance.now() - t0;
}

/** Flush the page cache's dirty pages to disk (`sync`), so that no timing pays for earlier writes. */
function settle(): void {
  execFileSync('sync');
}

/** `imerge start` of the built CLI, one process (what a user waits for), to the first conflict presented. */
function timeSplintercatProcess(dir: string): { ms: number; next: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cliMain, 'imerge', 'start', '--name', 'scp', 'feature'], {
    cwd: dir,
    env,
    encoding: 'utf8',
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`splintercat imerge start failed (exit ${r.status}): ${r.stderr}`);
  return { ms, next: /conflict merging commit (\d+-\d+)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? '?' };
}

function timeGitImerge(dir: string): { ms: number; next: string } {
  const t0 = performance.now();
  const r = spawnSync('git-imerge', ['start', '--name', 'gi', 'feature'], { cwd: dir, env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`git-imerge failed: ${r.stderr}`);
  return { ms, next: /conflict merging commit (\d+-\d+)/.exec(r.stderr)?.[1] ?? '?' };
}

async function main(): Promise<void> {
  ensureBuilt();
  const sizes = (process.env.BENCH_SIZES ?? (process.argv.includes('--quick') ? '33,5000' : '33,5000,50000'))
    .split(',')
    .map(Number);
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  process.stdout.write(
    `engine benchmark: ${N}x${N} grid, conflicts at ${CONFLICTS.map((c) => c.join('-')).join(', ')}\n`,
  );
  for (const files of sizes) {
    const dir = generate(files);
    // Fresh copies made before anything runs: each tool starts on the repository as generated
    // (no commit-graph or packs left by the other).
    // The process is timed on three fresh copies (the median is reported): one start is short enough
    // for the disk's and the scheduler's noise to move it by a fifth.
    const cliDirs = [1, 2, 3].map((k) => `${dir}-cli${k}`);
    const giDir = `${dir}-gi`;
    for (const d of cliDirs) cpSync(dir, d, { recursive: true });
    cpSync(dir, giDir, { recursive: true });
    // A copy's files all have new times, so its index no longer matches them and git would read
    // every file again to be sure; a user's checkout has an index in step with its files.
    for (const d of [...cliDirs, giDir]) git(d, ['update-index', '-q', '--refresh']);
    try {
      // Each timing starts once the disk has written out what came before (the copies above are
      // 2 x 50,000 files at the largest size): otherwise whichever tool runs first competes with
      // that write-back.
      settle();
      const sc = await timeSplintercat(dir);
      settle();
      const raw = timeRawReplay(dir, sc.log);
      const runs = cliDirs.map((d) => {
        settle();
        return timeSplintercatProcess(d);
      });
      const scp = [...runs].sort((a, b) => a.ms - b.ms)[1] as { ms: number; next: string };
      settle();
      const gi = timeGitImerge(giDir);
      process.stdout.write(
        `${String(files).padStart(6)} files: splintercat ${(sc.ms / 1000).toFixed(2)} s in-process (${sc.merges} merge-tree runs, first conflict ${sc.next?.join('-')}), ` +
          `${(scp.ms / 1000).toFixed(2)} s as one \`imerge start\` process (median of ${runs.map((r) => (r.ms / 1000).toFixed(2)).join(', ')}; first conflict ${scp.next}); ` +
          `git-imerge ${(gi.ms / 1000).toFixed(2)} s (first conflict ${gi.next}), raw replay ${(raw / 1000).toFixed(2)} s\n` +
          `${' '.repeat(6)}        git-imerge/splintercat: ${(gi.ms / scp.ms).toFixed(1)}x as processes, ${(gi.ms / sc.ms).toFixed(1)}x in-process; splintercat/raw ${(sc.ms / raw).toFixed(2)}x\n`,
      );
    } finally {
      for (const d of [dir, ...cliDirs, giDir]) rmSync(d, { recursive: true, force: true });
    }
  }
  clearInterval(timer);
  process.stdout.write(`peak RSS of the splintercat process: ${(peak / 1024 / 1024).toFixed(0)} MB\n`);
}

await main();
