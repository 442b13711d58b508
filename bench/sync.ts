/**
 * `npm run bench:sync [-- --quick]`: a fork sync at the size of a real one, driven to the end as a
 * person drives it (bench/scale/sync-drive.ts): a generated history of 1,000+ upstream commits,
 * 300+ conflicts, locale and lockfile churn on many fork commits and a tree of 10,000 files
 * (bench/scale/sync-fixture.ts); `splintercat merge` offline, the ladder then the scripted person
 * (`take theirs|ours FILE`, then `continue`). Printed: the disk high-water mark of the run's
 * worktrees against (the most worktrees at once) x one worktree of the merged tree, the estimate of the conflicts at
 * the first hand-off and every tenth against the real count, the time left against the real
 * time left over the last half of the run, the person's waiting per `continue`, and at the end
 * `status` and `report --html` (time, lines, size). Times are printed as ratios to a baseline
 * measured in the same run (the CLI's start-up, `--version`), never asserted; the targets are
 * printed as met or not. Exits 1 only when the drive does not finish.
 *
 * Environment (the shape): BENCH_SYNC_FORK (72), BENCH_SYNC_UPSTREAM (1015), BENCH_SYNC_CONFLICTS
 * (300), BENCH_SYNC_FILES (10000), BENCH_SYNC_LOCALE_EVERY (every 3rd fork commit),
 * BENCH_SYNC_UPSTREAM_LOCALE_EVERY (every 250th upstream commit), 0 for no churn;
 * BENCH_SYNC_POLICY=theirs settles the planned conflicts by `resolve.paths` (no person);
 * BENCH_SYNC_KEEP=1 keeps the run's directory. `--quick`: 20 x 150, 20 conflicts, 1,000 files.
 * The report's figures at 400 conflicts: BENCH_SYNC_UPSTREAM=1015 BENCH_SYNC_CONFLICTS=400
 * BENCH_SYNC_FILES=200 BENCH_SYNC_LOCALE_EVERY=0 BENCH_SYNC_UPSTREAM_LOCALE_EVERY=0 BENCH_SYNC_POLICY=theirs.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ensureBuilt } from './_cli.js';
import { benchGitEnv } from './_env.js';
import { cli, driveSync, du, type Estimate } from './scale/sync-drive.js';
import { generateSyncFixture, LOCKFILE, type SyncOptions } from './scale/sync-fixture.js';

const quick = process.argv.includes('--quick');
const num = (name: string, full: number, small: number): number => Number(process.env[name] ?? (quick ? small : full));
const shape: SyncOptions = {
  forkCommits: num('BENCH_SYNC_FORK', 72, 20),
  upstreamCommits: num('BENCH_SYNC_UPSTREAM', 1015, 150),
  conflicts: num('BENCH_SYNC_CONFLICTS', 300, 20),
  files: num('BENCH_SYNC_FILES', 10_000, 1000),
  localeEvery: num('BENCH_SYNC_LOCALE_EVERY', 3, 4),
  upstreamLocaleEvery: num('BENCH_SYNC_UPSTREAM_LOCALE_EVERY', 250, 50),
};
const NAME = 'sync';
/** BENCH_SYNC_POLICY=theirs|ours: the planned conflicts are settled by the fork's policy, not the person. */
const POLICY = ['theirs', 'ours'].includes(process.env.BENCH_SYNC_POLICY ?? '') ? process.env.BENCH_SYNC_POLICY : null;

const out = (line = ''): boolean => process.stdout.write(`${line}\n`);
const s = (ms: number | null): string => (ms === null ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);
const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MB`;
const n = (x: number | null): string => (x === null ? 'n/a' : String(x));
const ratio = (a: number | null, b: number | null): string =>
  a === null || b === null || b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const yes = (ok: boolean | null): string => (ok === null ? 'n/a' : ok ? 'yes' : 'NO');

function config(worktrees: string): string {
  return [
    'target:',
    '  branch: main',
    'check:',
    '  commands:',
    `    lockfile: test -s ${LOCKFILE}`,
    '  workflow: [lockfile]',
    'merge:',
    `  worktrees: ${worktrees}`,
    'resolve:',
    '  paths:',
    `    ${LOCKFILE}: theirs`,
    ...(POLICY ? [`    "conflicts/**": ${POLICY}`] : []),
    '',
  ].join('\n');
}

/** Time left against the real time left, at each hand-off of the last half of the run. */
function timeLeftErrors(estimates: Estimate[], wallMs: number): number[] {
  return estimates
    .filter((e) => e.atMs >= wallMs / 2 && e.leftMs !== null && wallMs - e.atMs > 0)
    .map((e) => ((e.leftMs as number) - (wallMs - e.atMs)) / (wallMs - e.atMs));
}

/** Kilobytes of a worktree as the run makes them: a linked, detached checkout of `commit`. */
async function worktreeOf(repo: string, root: string, commit: string): Promise<number> {
  const probe = join(root, 'one-worktree');
  execFileSync('git', ['worktree', 'add', '-q', '--detach', probe, commit], { cwd: repo, env: benchGitEnv });
  try {
    return await du(probe);
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', probe], { cwd: repo, env: benchGitEnv });
  }
}

async function main(): Promise<void> {
  ensureBuilt();
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'bench-sync-')));
  const repo = join(root, 'repo');
  const worktrees = join(root, 'worktrees');
  mkdirSync(repo);
  try {
    let t0 = performance.now();
    const cells = generateSyncFixture(repo, shape);
    writeFileSync(join(repo, 'splintercat.yaml'), config(worktrees));
    writeFileSync(join(repo, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    out(
      `bench:sync — ${shape.upstreamCommits} upstream x ${shape.forkCommits} fork commits, ${cells.length} planned conflicts, ${shape.files.toLocaleString('en-US')} files, locale and lockfile churn on 1 in ${shape.localeEvery} fork and 1 in ${shape.upstreamLocaleEvery} upstream commits (${s(performance.now() - t0)} to generate)`,
    );
    const startups: number[] = [];
    for (let k = 0; k < 3; k++) startups.push((await cli(repo, ['--version'])).ms);
    const startup = median(startups);
    const worktreeKb = await worktreeOf(repo, root, 'main');
    out(
      `  baseline: CLI start-up (--version) ${startup.toFixed(0)} ms; one worktree of the fork's tip ${mb(worktreeKb)}`,
    );

    t0 = performance.now();
    const d = await driveSync(repo, join(worktrees, NAME), NAME);
    out(
      `  drive: ${d.outcome}, wall ${s(d.wallMs)}, ${d.continues.length} hand-off(s), ${d.conflicts ?? 'n/a'} conflicts`,
    );
    if (d.outcome !== 'done') process.exitCode = 1;

    // A cell's worktree holds the fork's files and what upstream added by then: the merged tree is the
    // largest a run checks out, so it is the worktree the bound is counted in (the fork's tip too small).
    const mergedKb = d.outcome === 'done' ? await worktreeOf(repo, root, 'main') : 0;
    const perWorktree = Math.max(worktreeKb, mergedKb);
    out(`  one worktree: the fork's tip ${mb(worktreeKb)}, the merged tree ${mb(mergedKb)}`);
    const largest = Math.max(0, ...d.handed);
    const bound = d.peakWorktrees * perWorktree;
    out(
      `  disk: high-water mark ${mb(d.peakDiskKb)} (${ratio(d.peakDiskKb, perWorktree)} a worktree) over ${d.samples} samples; at most ${d.peakWorktrees} worktrees at once (largest hand-off ${largest} conflicts, + the check worktree, + up to merge.parallel being resolved) x ${mb(perWorktree)} = ${mb(bound)}; at worst ${mb(d.worstPerWorktreeKb)} a worktree in one sample (${ratio(d.worstPerWorktreeKb, perWorktree)}); disk <= worktrees x a worktree (5% for du's own timing): ${yes(d.worstPerWorktreeKb <= perWorktree * 1.05)}`,
    );
    out(`  hunks by rung: ${d.rungs ?? 'n/a'}`);

    const real = d.conflicts;
    const picked = d.estimates.filter((_, k) => k === 0 || (k + 1) % 10 === 0);
    out('  conflicts expected at hand-off k (estimate / real):');
    for (const e of picked) {
      const k = d.estimates.indexOf(e) + 1;
      out(
        `    #${k} at ${s(e.atMs)}: met ${n(e.met)}, expected ${n(e.expected)} / real ${n(real)} = ${ratio(e.expected, real)}`,
      );
    }
    const first = d.estimates[0]?.expected ?? null;
    const within = first === null || real === null ? null : first / real <= 1.5 && real / first <= 1.5;
    out(`    the first estimate within 1.5x of the real count: ${yes(within)}`);

    const errors = timeLeftErrors(d.estimates, d.wallMs);
    const worst = errors.length === 0 ? null : Math.max(...errors.map(Math.abs));
    out(
      `  time left over the last half (${errors.length} hand-offs): ${errors.length ? errors.map((x) => `${(x * 100).toFixed(0)}%`).join(' ') : 'n/a'}; worst ${worst === null ? 'n/a' : `${(worst * 100).toFixed(0)}%`}; within 25%: ${yes(worst === null ? null : worst <= 0.25)}`,
    );

    const waits = d.continues;
    out(
      `  the person's waiting per continue: median ${s(median(waits))} (${ratio(median(waits), startup)} start-up), max ${s(waits.length ? Math.max(...waits) : 0)}, total ${s(waits.reduce((a, b) => a + b, 0))}; answering: ${d.takes} take command(s), ${s(d.takeMs)}`,
    );

    const status = await cli(repo, ['status', '--name', NAME]);
    const lines = status.out.split('\n').length - 1;
    const html = join(root, 'report.html');
    const reports = [];
    for (let k = 0; k < 2; k++) reports.push(await cli(repo, ['report', '--name', NAME, '--html', html]));
    const size = statSync(html).size;
    out(
      `  status: ${s(status.ms)} (${ratio(status.ms, startup)} start-up), ${lines} lines; < 1 s: ${yes(status.ms < 1000)}, < 80 lines: ${yes(lines < 80)}`,
    );
    out(
      `  report --html: first ${s(reports[0]?.ms ?? null)}, again ${s(reports[1]?.ms ?? null)} (${ratio(reports[1]?.ms ?? null, startup)} start-up), ${(size / 1024).toFixed(0)} KB; < 5 s: ${yes((reports[0]?.ms ?? Infinity) < 5000)}, < 2 MB: ${yes(size < 2 * 1024 * 1024)}`,
    );
    if (reports.some((r) => r.code !== 0)) out(`  report failed: ${reports.map((r) => r.err.slice(-300)).join(' / ')}`);
    if (process.env.BENCH_SYNC_KEEP) out(`  kept: ${root}`);
  } finally {
    if (!process.env.BENCH_SYNC_KEEP) rmSync(root, { recursive: true, force: true });
  }
}

await main();
