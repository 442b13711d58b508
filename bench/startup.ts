/**
 * `npm run bench:startup [-- --quick]`: start-up of the built CLI (`node dist/cli/main.js`, as a user
 * runs it) against `node -e 0` in the same run. Measured: `--version`, `status` (a repository with
 * no merge, and the finished run `splintercat demo` leaves), `driver` (a clean three-way merge of
 * small files, and one git leaves a conflict in, which loads the configuration and the ladder),
 * `imerge list`, and `COMMAND --help` of every command (what a command costs before it does any work). Rounds: every entry once per
 * round, BENCH_ROUNDS rounds (default 15; `--quick`: 5), so a change in the machine's load hits
 * every entry alike; printed: median and minimum wall time, the median above `node -e 0`, and the
 * budget (BENCH_BUDGET_MS, default 150 ms of wall time, issue 14). A missed budget is printed as
 * MISSED; the exit code is 1 only when a command fails to run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliMain, ensureBuilt } from './_cli.js';
import { benchGitEnv } from './_env.js';

const env = benchGitEnv;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (process.argv.includes('--quick') ? 5 : 15));
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 150);

/** Every command of `splintercat --help`, read from the CLI itself. */
function commands(dir: string): string[] {
  const help = execFileSync(process.execPath, [cliMain, '--help'], { cwd: dir, env, encoding: 'utf8' });
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1] as string).filter((c) => c !== 'help');
}

interface Entry {
  label: string;
  argv: string[];
  /** Exit codes that mean "ran" (status with no merge may say so with a non-zero code). */
  ok: (status: number | null) => boolean;
  budget: number | null;
  ms: number[];
  failure?: string;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

function main(): void {
  ensureBuilt();
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bench-startup-')));
  try {
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env });
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    execFileSync('git', ['add', '.'], { cwd: dir, env });
    execFileSync('git', ['commit', '-qm', 'a'], { cwd: dir, env });
    writeFileSync(join(dir, 'base'), 'one\ntwo\nthree\nfour\n');
    writeFileSync(join(dir, 'ours'), 'one ours\ntwo\nthree\nfour\n');
    writeFileSync(join(dir, 'theirs'), 'one\ntwo\nthree\nfour theirs\n');
    writeFileSync(join(dir, 'conflict-theirs'), 'one theirs\ntwo\nthree\nfour\n');
    // A finished run to show: the demo's (offline, a few seconds).
    const demo = join(dir, 'demo');
    execFileSync(process.execPath, [cliMain, 'demo', '--dir', demo], { cwd: dir, env, stdio: 'ignore' });
    const cli = (
      label: string,
      args: string[],
      budget: number | null,
      ok: (s: number | null) => boolean = (s) => s === 0,
    ): Entry => ({
      label,
      argv: [cliMain, ...args],
      ok,
      budget,
      ms: [],
    });
    const entries: Entry[] = [
      { label: 'node -e 0', argv: ['-e', '0'], ok: (s) => s === 0, budget: null, ms: [] },
      cli('--version', ['--version'], BUDGET_MS),
      cli('status (no merge)', ['status'], BUDGET_MS, (s) => s !== null && s < 64),
      cli(
        'status (a finished run)',
        ['-C', demo, '--config', join(demo, '.git', 'splintercat-demo.yaml'), 'status'],
        BUDGET_MS,
      ),
      cli('driver (clean merge)', ['driver', 'base', 'ours', 'theirs', 'file.txt'], BUDGET_MS),
      cli(
        'driver (a conflict: ladder)',
        ['driver', 'base', 'conflict-ours', 'conflict-theirs', 'file.txt'],
        BUDGET_MS,
        (s) => s === 1,
      ),
      cli('imerge list', ['imerge', 'list'], BUDGET_MS),
      ...commands(dir).map((c) => cli(`${c} --help`, [c, '--help'], BUDGET_MS)),
    ];
    process.stdout.write(
      `start-up benchmark: ${ROUNDS} rounds of ${entries.length} commands through ${cliMain.replace(/.*\/(dist\/)/, '$1')}; ` +
        `${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}\n`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const e of entries) {
        // The driver writes its result over %A: put ours back for every round.
        if (e.argv[1] === 'driver' && e.argv[3] !== undefined)
          writeFileSync(join(dir, e.argv[3]), 'one ours\ntwo\nthree\nfour\n');
        const t0 = performance.now();
        const r = spawnSync(process.execPath, e.argv, { cwd: dir, env, encoding: 'utf8' });
        e.ms.push(performance.now() - t0);
        if (!e.ok(r.status)) e.failure ??= `exit ${r.status}: ${(r.stderr || r.stdout).trim().slice(0, 300)}`;
      }
    }
    const node = median((entries[0] as Entry).ms);
    const width = Math.max(...entries.map((e) => e.label.length));
    let failed = false;
    let missed = 0;
    for (const e of entries) {
      const med = median(e.ms);
      const verdict = e.failure
        ? `FAILED (${e.failure})`
        : e.budget === null
          ? ''
          : med <= e.budget
            ? `budget ${e.budget} ms: met`
            : `budget ${e.budget} ms: MISSED`;
      if (e.failure) failed = true;
      if (!e.failure && e.budget !== null && med > e.budget) missed++;
      process.stdout.write(
        `${e.label.padEnd(width)}  median ${med.toFixed(0).padStart(5)} ms, min ${Math.min(...e.ms)
          .toFixed(0)
          .padStart(5)} ms` +
          `${e === entries[0] ? '' : `, +${(med - node).toFixed(0).padStart(4)} ms over node -e 0`}  ${verdict}\n`,
      );
    }
    process.stdout.write(`${missed} of ${entries.length - 1} commands over budget\n`);
    if (failed) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
