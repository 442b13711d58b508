/**
 * `npm run bench:drive [-- --quick]`: a whole incremental merge driven as a user drives it, one CLI
 * process per command, git-imerge 1.2.0 and `splintercat imerge` (the built CLI) in the same run:
 * `start`, then for each conflict presented the same keep-both resolution (bench/_keep-both.ts),
 * `git add` and `continue`, until the merge is complete, then `finish`. The two tools step in
 * lockstep (one command of each in turn), so a change in the machine's load hits both alike.
 * Printed per grid: the total, the cost per conflict (one `continue`) over the first and the last
 * BENCH_EDGE (default 15) conflicts, and the ratios. Then `splintercat merge`'s workflow (ladder,
 * checks, recovery; bench/_workflow-drive.ts) on the generated grid with a zero-delay model stub.
 * Grids: a generated one (default 300 x 80 commits, 150 conflicts, 3,000 files; `--quick`:
 * 60 x 20, 20 conflicts, 500 files) and every merge of ../shared/real-histories (first-parent grids).
 * Exits 1 when the two tools' final trees differ or a drive fails.
 * Environment: BENCH_GRID=N1xN2, BENCH_CONFLICTS, BENCH_FILES, BENCH_EDGE, BENCH_HISTORIES (a
 * directory of bundles, default ../shared/real-histories; 'none' skips them), BENCH_WORKFLOW=0 skips the workflow,
 * BENCH_TOOLS=splintercat drives splintercat alone (no ratios, no comparison of the trees: for iterating on its own cost),
 * BENCH_DUMP=DIR writes each grid's and tool's time and merges per `continue` there, as JSON.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliMain, ensureBuilt } from './_cli.js';
import { benchGitEnv } from './_env.js';
import { conflictPairs, generateGrid } from './_grid.js';
import { resolveKeepBoth } from './_keep-both.js';
import { runWorkflow } from './_workflow-drive.js';

const env = benchGitEnv;
const quick = process.argv.includes('--quick');
const [N1, N2] = (process.env.BENCH_GRID ?? (quick ? '60x20' : '300x80')).split('x').map(Number) as [number, number];
const CONFLICTS = Number(process.env.BENCH_CONFLICTS ?? (quick ? 20 : 150));
const FILES = Number(process.env.BENCH_FILES ?? (quick ? 500 : 3000));
const EDGE = Number(process.env.BENCH_EDGE ?? 15);
const here = dirname(fileURLToPath(import.meta.url));
const HISTORIES = process.env.BENCH_HISTORIES ?? resolve(here, '..', '..', 'shared', 'real-histories');
const TOOLS = (process.env.BENCH_TOOLS ?? 'git-imerge,splintercat')
  .split(',')
  .filter((t): t is Tool => t === 'git-imerge' || t === 'splintercat');

function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd: dir, env, input, encoding: 'utf8', maxBuffer: 1 << 30 }).trimEnd();
}

function tempRepoDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

type Tool = 'git-imerge' | 'splintercat';

/** One tool driving one merge, a command at a time. */
class Drive {
  readonly startMs: number[] = [];
  /** Wall time of each `continue` (the cost of one conflict as the user waits for it). */
  readonly continues: number[] = [];
  /** Merges each `continue` made, as splintercat prints them (git-imerge does not say). */
  readonly merges: number[] = [];
  finishMs = 0;
  tree = '';
  done = false;
  failed: string | null = null;
  private started = false;

  constructor(
    readonly tool: Tool,
    readonly dir: string,
    private readonly tip2: string,
    private readonly firstParent: boolean,
  ) {}

  private run(args: string[]): { ms: number; out: string; status: number | null } {
    const [cmd, argv] =
      this.tool === 'git-imerge' ? ['git-imerge', args] : [process.execPath, [cliMain, 'imerge', ...args]];
    const t0 = performance.now();
    const r = spawnSync(cmd as string, argv as string[], { cwd: this.dir, env, encoding: 'utf8', maxBuffer: 1 << 30 });
    return { ms: performance.now() - t0, out: `${r.stdout}${r.stderr}`, status: r.status };
  }

  private merging(): boolean {
    return spawnSync('git', ['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: this.dir, env }).status === 0;
  }

  /** One command: start, or resolve the presented conflict and continue, or finish. */
  step(): void {
    if (this.done || this.failed) return;
    let r: { ms: number; out: string; status: number | null };
    if (!this.started) {
      this.started = true;
      r = this.run([
        'start',
        '--name',
        'bench',
        '--goal',
        'merge',
        '--branch',
        'bench-result',
        ...(this.firstParent ? ['--first-parent'] : []),
        this.tip2,
      ]);
      this.startMs.push(r.ms);
    } else {
      resolveKeepBoth(this.dir, env);
      r = this.run(['continue', '--no-edit']);
      this.continues.push(r.ms);
      this.merges.push(Number(/^(\d+) merges in /m.exec(r.out)?.[1] ?? 0));
    }
    if (this.merging()) return;
    if (!/Merge is complete/.test(r.out)) {
      this.failed = `no conflict presented and the merge is not complete (exit ${r.status}):\n${r.out.slice(-2000)}`;
      return;
    }
    const f = this.run(['finish']);
    this.finishMs = f.ms;
    if (f.status !== 0) {
      this.failed = `finish failed (exit ${f.status}):\n${f.out.slice(-2000)}`;
      return;
    }
    this.tree = git(this.dir, ['rev-parse', 'bench-result^{tree}']);
    this.done = true;
  }

  get totalMs(): number {
    return sum(this.startMs) + sum(this.continues) + this.finishMs;
  }
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]): number => (xs.length === 0 ? NaN : sum(xs) / xs.length);
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** Drive both tools over copies of one repository, in lockstep. */
function driveBoth(makeRepo: (dir: string) => void, tip2: string, firstParent: boolean): Drive[] {
  const drives = TOOLS.map((tool) => {
    const dir = tempRepoDir(`bench-drive-${tool}-`);
    makeRepo(dir);
    return new Drive(tool, dir, tip2, firstParent);
  });
  const t0 = performance.now();
  let steps = 0;
  while (drives.some((d) => !d.done && !d.failed)) {
    for (const d of drives) d.step();
    // A line every 10 conflicts on stderr, so a long run shows where it is.
    if (++steps % 10 === 0) {
      process.stderr.write(
        `  ... ${steps} steps, ${s(performance.now() - t0)}: ${drives.map((d) => `${d.tool} ${d.continues.length} conflicts in ${s(d.totalMs)}`).join(', ')}\n`,
      );
    }
  }
  return drives;
}

/** Print one grid's comparison; returns false when a drive failed or the trees differ. */
function report(title: string, drives: Drive[]): boolean {
  process.stdout.write(`\n${title}\n`);
  let ok = true;
  for (const d of drives) {
    if (d.failed) {
      ok = false;
      process.stdout.write(`  ${d.tool}: FAILED: ${d.failed}\n`);
      continue;
    }
    const n = d.continues.length;
    if (process.env.BENCH_DUMP)
      writeFileSync(
        join(process.env.BENCH_DUMP, `${title.replace(/[^A-Za-z0-9.]+/g, '-')}-${d.tool}.json`),
        JSON.stringify({ continues: d.continues, merges: d.merges }),
      );
    const first = mean(d.continues.slice(0, Math.min(EDGE, n)));
    const last = mean(d.continues.slice(Math.max(0, n - EDGE)));
    process.stdout.write(
      `  ${d.tool.padEnd(11)} total ${s(d.totalMs).padStart(9)}: start ${s(sum(d.startMs))}, ${n} conflicts (continue ${s(mean(d.continues))} each on average; ` +
        `first ${Math.min(EDGE, n)}: ${s(first)}, last ${Math.min(EDGE, n)}: ${s(last)}, last/first ${(last / first).toFixed(2)}), finish ${s(d.finishMs)}\n`,
    );
    // What the grid asks of each conflict grows as it fills (both tools make the same merges); the
    // cost of each merge is what the tool controls.
    if (d.tool === 'splintercat' && sum(d.merges) > 0) {
      const edge = Math.min(EDGE, n);
      const [m1, m2] = [mean(d.merges.slice(0, edge)), mean(d.merges.slice(n - edge))];
      process.stdout.write(
        `  ${''.padEnd(11)} merges per continue: first ${edge}: ${m1.toFixed(1)}, last ${edge}: ${m2.toFixed(1)} (x${(m2 / m1).toFixed(2)}); ` +
          `time per merge made: first ${edge}: ${(first / m1).toFixed(1)} ms, last ${edge}: ${(last / m2).toFixed(1)} ms (x${(last / m2 / (first / m1)).toFixed(2)})\n`,
      );
    }
  }
  const gi = drives.find((d) => d.tool === 'git-imerge');
  const sc = drives.find((d) => d.tool === 'splintercat');
  if (ok && gi && sc) {
    const n = Math.min(EDGE, sc.continues.length);
    const firstRatio = mean(gi.continues.slice(0, n)) / mean(sc.continues.slice(0, n));
    const lastRatio = mean(gi.continues.slice(-n)) / mean(sc.continues.slice(-n));
    process.stdout.write(
      `  git-imerge / splintercat: total ${(gi.totalMs / sc.totalMs).toFixed(2)}x, per conflict ${(mean(gi.continues) / mean(sc.continues)).toFixed(2)}x ` +
        `(first ${n}: ${firstRatio.toFixed(2)}x, last ${n}: ${lastRatio.toFixed(2)}x)\n`,
    );
    if (gi.continues.length !== sc.continues.length)
      process.stdout.write(`  note: the tools presented ${gi.continues.length} and ${sc.continues.length} conflicts\n`);
    const same = gi.tree === sc.tree;
    process.stdout.write(
      `  final trees: ${same ? `identical (${sc.tree})` : `DIFFER: git-imerge ${gi.tree}, splintercat ${sc.tree}`}\n`,
    );
    ok = same;
  }
  return ok;
}

/** The merges of real-histories/README.md's table: bundle, fork side (first parent), upstream side. */
function realMerges(
  dir: string,
): Array<{ bundle: string; merge: string; fork: string; upstream: string; grid: string }> {
  const readme = join(dir, 'README.md');
  if (!existsSync(readme)) return [];
  const rows: Array<{ bundle: string; merge: string; fork: string; upstream: string; grid: string }> = [];
  for (const line of readFileSync(readme, 'utf8').split('\n')) {
    const m = /^\| (\S+\.bundle) \| ([0-9a-f]{40}) [^|]*\| ([0-9a-f]{40}) \| ([0-9a-f]{40}) \| ([^|]+) \|/.exec(line);
    if (m)
      rows.push({
        bundle: m[1] as string,
        merge: m[2] as string,
        fork: m[3] as string,
        upstream: m[4] as string,
        grid: (m[5] as string).trim(),
      });
  }
  return rows;
}

async function main(): Promise<void> {
  ensureBuilt();
  if (TOOLS.length === 0)
    throw new Error('BENCH_TOOLS names no tool: git-imerge, splintercat or both, comma-separated');
  const gitImerge = TOOLS.includes('git-imerge') ? spawnSync('git-imerge', ['--help'], { encoding: 'utf8' }) : null;
  if (gitImerge?.error) throw new Error('git-imerge is not installed (Debian: apt-get install git-imerge)');
  process.stdout.write(
    `drive benchmark: each tool driven as a user drives it (one process per command, keep-both resolutions), in lockstep; ` +
      `${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}\n`,
  );
  let ok = true;
  const dirs: string[] = [];
  try {
    const merges = HISTORIES === 'none' ? [] : realMerges(HISTORIES);
    if (HISTORIES !== 'none' && merges.length === 0)
      process.stdout.write(
        `\nreal histories: none found in ${HISTORIES} (README.md with the table of merges); skipped\n`,
      );
    for (const m of merges) {
      const made = driveBoth(
        (dir) => {
          execFileSync('git', ['clone', '-q', '--no-checkout', join(HISTORIES, m.bundle), dir], {
            env,
            stdio: 'ignore',
          });
          for (const [k, v] of [
            ['gc.auto', '0'],
            ['maintenance.auto', 'false'],
            ['commit.gpgsign', 'false'],
          ])
            git(dir, ['config', k as string, v as string]);
          git(dir, ['checkout', '-q', '-B', 'fork', m.fork]);
          git(dir, ['branch', '-f', 'upstream', m.upstream]);
        },
        'upstream',
        true,
      );
      dirs.push(...made.map((d) => d.dir));
      ok = report(`${m.bundle} ${m.merge.slice(0, 12)} (first-parent grid ${m.grid})`, made) && ok;
    }

    const pairs = conflictPairs(N1, N2, CONFLICTS);
    const drives = driveBoth((dir) => generateGrid(dir, N1, N2, pairs, FILES), 'feature', false);
    dirs.push(...drives.map((d) => d.dir));
    ok =
      report(
        `generated grid: ${N1} x ${N2} commits, ${pairs.length} conflicting pairs, ${FILES + pairs.length} files`,
        drives,
      ) && ok;

    if (process.env.BENCH_WORKFLOW !== '0') {
      const dir = tempRepoDir('bench-drive-workflow-');
      dirs.push(dir);
      generateGrid(dir, N1, N2, pairs, FILES);
      const w = await runWorkflow(dir, 'feature', EDGE);
      const expected = drives.find((d) => d.tool === 'splintercat')?.tree;
      process.stdout.write(
        `\nsplintercat merge (the workflow, one process, ladder + zero-delay model stub, check 'true') on the generated grid: ${w.outcome} in ${s(w.totalMs)}; ` +
          `${w.conflicts} conflicts (${s(w.totalMs / Math.max(1, w.conflicts))} each on average; between resolutions: first ${EDGE} ${s(w.firstMs)}, last ${EDGE} ${s(w.lastMs)}); ` +
          `hunks by rung: ${w.rungs}; final tree ${w.tree === expected ? 'identical to the imerge drives' : `${w.tree || 'none'} (the imerge drives: ${expected ?? 'none'})`}\n`,
      );
    }
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
  if (!ok) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
