/**
 * `npm run bench:scale [-- --quick]`: the job at its real size. On the scale fixture (bench/scale/:
 * a C project of 2,400 files with a real make build, 1,100 upstream and 120 fork commits, 36
 * conflicts of every kind in six waves; `--quick`: a third of it):
 *
 * 1. `imerge start` of splintercat against git-imerge on the grid, same blockers (ratio);
 * 2. what a check costs without the savings: a clean build and a full test of the fork tip;
 * 3. the scale drive (`splintercat merge`, the scripted model, the simulated person) with every
 *    saving on, then with each off in turn (fast/full checks, selection, the no-code skip, the
 *    batch hand-off; the strategy fixed to the one the planner chose first): wall time, check time,
 *    checks, hand-offs, the person's waiting, the planner's prediction against the actual, peak RSS;
 *    incremental builds off is computed from the drive's build checks and the measured clean build;
 * 4. `status` and `report --html` on a 1,500 x 300 grid with 1,000 conflicts and 10,000 events.
 *
 * Environment: BENCH_SCALE_VARIANTS=all (default) | none | a comma list of fast,select,skip,handoff;
 * BENCH_SCALE_IMERGE=0 and BENCH_SCALE_STATE=0 skip those parts.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliMain, ensureBuilt } from './_cli.js';
import { benchGitEnv } from './_env.js';
import { driveScale, type ScaleDrive } from './scale/drive.js';
import { generateScaleFixture, SCALE_FULL, type ScaleFixture, type ScaleOptions } from './scale/fixture.js';
import { compareImergeStart } from './scale/imerge-vs.js';
import { stateAtScale } from './scale/state-at-scale.js';

const quick = process.argv.includes('--quick');
const QUICK: ScaleOptions = {
  ...SCALE_FULL,
  modulesPerArea: 2,
  filesPerModule: 60,
  forkCommits: 120,
  upstreamCommits: 1000,
};
const variants: Record<string, { label: string; sets: string[] }> = {
  fast: { label: 'fast/full checks off (every check is build + full test)', sets: ['check.fast=[]'] },
  select: { label: 'test selection off (every fast check runs)', sets: ['check.select={}'] },
  skip: { label: 'no-code skip off', sets: ['check.skip_no_code_change=false'] },
  handoff: { label: 'batch hand-off off', sets: ['merge.batch_handoff=false'] },
};
const chosen =
  (process.env.BENCH_SCALE_VARIANTS ?? 'all') === 'all'
    ? Object.keys(variants)
    : (process.env.BENCH_SCALE_VARIANTS ?? '').split(',').filter((v) => v in variants);

const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const min = (ms: number): string => `${(ms / 60_000).toFixed(1)} min`;
const out = (line = ''): boolean => process.stdout.write(`${line}\n`);

/** Clean build and full test of the fork tip in a copy with a fresh build directory: what a check costs without the savings. */
function cleanCheck(dir: string): { buildMs: number; testMs: number } {
  const copy = `${dir}-clean`;
  cpSync(dir, copy, { recursive: true });
  const build = join(`${dir}-clean-build`);
  const time = (args: string[]): number => {
    const t0 = performance.now();
    execFileSync('make', [...args, `BUILD=${build}`], { cwd: copy, env: benchGitEnv, stdio: 'ignore' });
    return performance.now() - t0;
  };
  try {
    return { buildMs: time(['-j2', '-s']), testMs: time(['-s', 'test']) };
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(build, { recursive: true, force: true });
  }
}

interface DriveSummary {
  name: string;
  drive: ScaleDrive;
  checkMs: number;
  checks: number;
  builds: number;
  skipped: number;
}

async function drive(fixture: ScaleFixture, name: string, sets: string[]): Promise<DriveSummary> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'bench-scale-drive-')));
  const dir = join(root, 'repo');
  cpSync(fixture.dir, dir, { recursive: true });
  try {
    const d = await driveScale({ ...fixture, dir }, sets, join(root, 'build'));
    if (process.env.BENCH_SCALE_DUMP) dumpChecks(`${process.env.BENCH_SCALE_DUMP}-${name.replace(/\W+/g, '_')}.txt`, d);
    const checks = d.state.checks;
    return {
      name,
      drive: d,
      checkMs: checks.reduce((t, c) => t + c.durationMs, 0),
      checks: checks.length,
      builds: checks.filter((c) => c.name === 'build').length,
      skipped: d.state.conflicts.filter((c) => c.checkSkipped).length,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Every check in the order it ran, with the decisions between: for reading where the check time went. */
function dumpChecks(file: string, d: ScaleDrive): void {
  const lines = d.events.flatMap((e) =>
    e.type === 'check_finished'
      ? [
          `check ${e.check.target} ${e.check.name} ${e.check.cell ? `${e.check.cell.i1}-${e.check.cell.i2}` : '-'} ${s(e.check.durationMs)} ${e.check.success ? 'ok' : 'FAILED'}`,
        ]
      : e.type === 'decision'
        ? [`decision ${e.kind} ${e.decision}: ${e.reasoning.slice(0, 200)}`]
        : e.type === 'person_needed'
          ? [`hand-off ${(e.conflicts ?? []).join(' ')}`]
          : [],
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function report(r: DriveSummary): void {
  const d = r.drive;
  const st = d.state.strategy;
  const prediction = st?.prediction;
  const person = d.handoffs.reduce((t, h) => t + h.waitedMs, 0) - (d.handoffs[0]?.waitedMs ?? 0);
  out(
    `${r.name}: ${d.outcome}, wall ${min(d.wallMs)}, check time ${min(r.checkMs)} over ${r.checks} checks (${r.builds} builds), ${r.skipped} skipped`,
  );
  out(
    `  strategy ${st?.kind}${st?.batchSize ? `(${st.batchSize})` : ''} by ${st?.decidedBy}; predicted check time ${prediction ? min(prediction.ms) : '-'} for ${prediction?.conflicts ?? '-'} conflicts, actual ${min(r.checkMs)} for ${d.state.conflicts.length}`,
  );
  out(`  the planner: ${st?.reasoning ?? '-'}`);
  out(
    `  hand-offs: ${d.handoffs.map((h) => `[${h.conflicts.join(' ')}]${h.amend ? ' amend' : ''} after ${s(h.waitedMs)}`).join(', ') || 'none'}`,
  );
  out(
    `  the person waited ${s(person)} between hand-offs in all; for conflicts they could already see: ${s(d.waitedForVisibleMs)}`,
  );
  out(`  peak RSS of the splintercat process: ${d.peakRssMb.toFixed(0)} MB`);
  out(`  check time by target and check: ${checkBreakdown(d.state.checks)}`);
}

/** Check time grouped by what was checked and which check: `cell build 34 x 20.1 s = 11.4 min, ...`. */
function checkBreakdown(checks: DriveSummary['drive']['state']['checks']): string {
  const groups = new Map<string, { n: number; ms: number }>();
  for (const c of checks) {
    const key = `${c.target} ${c.name}`;
    const g = groups.get(key) ?? { n: 0, ms: 0 };
    groups.set(key, { n: g.n + 1, ms: g.ms + c.durationMs });
  }
  return [...groups]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([key, g]) => `${key} ${g.n} x ${s(g.ms / g.n)} = ${min(g.ms)}`)
    .join(', ');
}

async function main(): Promise<void> {
  ensureBuilt();
  const options = quick ? QUICK : SCALE_FULL;
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'bench-scale-')));
  const dir = join(root, 'repo');
  mkdirSync(dir);
  try {
    let t0 = performance.now();
    const fixture = generateScaleFixture(dir, options);
    out(
      `scale fixture: ${fixture.sourceFiles} C files, ${options.upstreamCommits} upstream x ${options.forkCommits} fork commits, ${fixture.conflicts.length} conflicts (${s(performance.now() - t0)} to generate with fast-import)`,
    );

    if (process.env.BENCH_SCALE_IMERGE !== '0') {
      const im = compareImergeStart(dir, fixture.upstream);
      out(
        `imerge start on the ${options.forkCommits} x ${options.upstreamCommits} grid: splintercat ${s(im.splintercatMs)}, git-imerge ${s(im.gitImergeMs)}: ${(im.gitImergeMs / im.splintercatMs).toFixed(1)}x (target >= 20x); first conflict ${im.first.splintercat} / ${im.first.gitImerge}, blockers ${im.blockers.splintercat.length} / ${im.blockers.gitImerge.length}, ${im.same ? 'the same' : 'DIFFERENT'}`,
      );
      if (!im.same) process.exitCode = 1;
    }

    t0 = performance.now();
    const clean = cleanCheck(dir);
    out(`a check without the savings (fork tip): clean build ${s(clean.buildMs)}, full test ${s(clean.testMs)}`);

    const on = await drive(fixture, 'every saving on', []);
    report(on);
    const st = on.drive.state.strategy;
    const fixed = st
      ? [`merge.strategy=${st.kind}`, ...(st.batchSize ? [`merge.default_batch_size=${st.batchSize}`] : [])]
      : [];
    // Without the savings every commit checked gets a clean build and the full test: one per build check of the drive.
    const naive = on.builds * (clean.buildMs + clean.testMs);
    const buildMs = on.drive.state.checks.filter((c) => c.name === 'build').reduce((t, c) => t + c.durationMs, 0);
    const incrementalOff = on.checkMs - buildMs + on.builds * clean.buildMs;
    out(
      `  incremental builds off: ${min(incrementalOff)} of checks (${on.builds} builds at the clean build's ${s(clean.buildMs)} instead of ${s(buildMs / Math.max(1, on.builds))} each; computed, not driven)`,
    );
    out(
      `  "a clean build and full test per check" (${on.builds} commits checked): ${min(naive)}; the drive's check time is ${((on.checkMs / naive) * 100).toFixed(0)}% of it (target <= 25%)`,
    );
    if (on.drive.outcome !== 'done') process.exitCode = 1;

    const rows: Array<[string, number, number]> = [['every saving on', on.checkMs, on.checks]];
    rows.push(['incremental builds off (computed)', incrementalOff, on.checks]);
    for (const key of chosen) {
      const v = variants[key] as { label: string; sets: string[] };
      const r = await drive(fixture, v.label, [...fixed, ...v.sets]);
      report(r);
      rows.push([v.label, r.checkMs, r.checks]);
      if (r.drive.outcome !== 'done') process.exitCode = 1;
    }
    out('');
    out('total check time by saving:');
    for (const [label, ms, n] of rows)
      out(
        `  ${label.padEnd(58)} ${min(ms).padStart(10)}  ${String(n).padStart(4)} checks  ${(ms / on.checkMs).toFixed(2)}x`,
      );

    if (process.env.BENCH_SCALE_STATE !== '0') {
      const st2 = stateAtScale(1500, 300, 1000);
      out('');
      out(
        `status and report on a ${st2.grid} grid, ${st2.conflicts} conflicts, ${st2.events} events (${st2.journalMb.toFixed(1)} MB journal):`,
      );
      out(
        `  status ${s(st2.statusMs)}, status --json ${s(st2.statusJsonMs)}, report --html ${s(st2.reportMs)} (${st2.reportMb.toFixed(1)} MB); on a 6 x 5 run: status ${s(st2.small.statusMs)}, report ${s(st2.small.reportMs)}`,
      );
    }
    out(`(${cliMain})`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
