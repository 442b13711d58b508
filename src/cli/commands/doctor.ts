import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { SplintercatError, UsageError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import type * as StoreModule from '../../store/index.js';
import type { DoctorDeps, DoctorFinding } from '../../store/index.js';
import { configRequest, globalOptions, printJson, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';

interface DoctorOptions {
  name?: string;
  repair?: boolean;
  rebuild?: boolean;
  json?: boolean;
}

/** The store's doctor, loaded when the command runs. */
type Store = typeof StoreModule;

/** Run `--rebuild`, `--repair` or the validation on `runDir`, print the report; exit 1 when not ok. */
async function doctorRun(
  store: Store,
  opts: DoctorOptions,
  name: string,
  runDir: string,
  git: Git,
  deps: DoctorDeps,
): Promise<void> {
  let ok: boolean;
  if (opts.rebuild) {
    const report = await store.rebuildRun(runDir, git, deps);
    ok = report.ok;
    if (opts.json) printJson(report);
    else {
      const head = report.ok ? `Rebuilt run '${name}'` : `Run '${name}' could not be rebuilt completely`;
      printResult(
        lines(
          head,
          report.actions,
          report.lost.map((l) => `lost: ${l}`),
          report.hint,
        ),
      );
    }
  } else if (opts.repair) {
    const report = await store.repairRun(runDir, git, deps);
    ok = report.ok;
    if (opts.json) printJson(report);
    else {
      const head = report.ok
        ? `Repaired run '${name}'`
        : `Run '${name}' is not repaired: ${report.remaining.filter((f) => f.severity === 'error').length} problem(s) remain${report.actions.length > 0 ? ` after ${report.actions.length} change(s)` : ''}`;
      printResult(lines(head, report.actions, report.remaining.map(finding), report.hint));
    }
  } else {
    const report = await store.validateRun(runDir, git, deps);
    ok = report.ok;
    if (opts.json) printJson(report);
    else {
      const head = report.ok
        ? `Run '${name}' is healthy (${report.journal.entries} journal entries)`
        : `Run '${name}' has problems`;
      const hint = report.ok
        ? null
        : report.findings.some((f) => f.repairable)
          ? 'Run `splintercat doctor --repair` to fix the repairable ones'
          : 'Run `splintercat doctor --rebuild` to reconstruct the state';
      printResult(lines(head, [], report.findings.map(finding), hint));
    }
  }
  if (!ok) process.exitCode = ExitCode.Failed;
}

async function doctor(opts: DoctorOptions, cmd: Command): Promise<void> {
  if (opts.repair && opts.rebuild) {
    throw new UsageError('doctor_flags', {
      what: '--repair and --rebuild cannot be used together',
      fix: 'Try --repair first; use --rebuild when it says so',
    });
  }
  const { configFor } = await import('../../workflow/config-for.js');
  const store = await import('../../store/index.js');
  const { runWorktreesDir } = await import('../../workflow/worktree-paths.js');
  const global = globalOptions(cmd);
  const opened = await configFor.run({
    ...configRequest(global),
    name: opts.name,
    runRequired: false,
    configRequired: false,
  });
  const { config, git } = opened;
  const name = opened.name ?? config.imerge.name;
  try {
    const runDir = opened.store.paths(name).dir;
    if (!existsSync(runDir)) {
      const known = opened.store.list().map((r) => r.name);
      throw new SplintercatError('run_missing', {
        what: `There is no splintercat run named '${name}' in ${config.target.workdir}`,
        why: known.length > 0 ? `Runs found: ${known.join(', ')}` : 'No run has been started in this repository',
        fix: known.length > 0 ? `splintercat doctor --name ${known[0]}` : 'Start one with `splintercat merge SOURCE`',
      });
    }
    const stored = (await configFor.storedRun(opened.state, opened.store)) ?? config;
    const deps = { worktreesDir: runWorktreesDir(stored, dirname(opened.store.root), name) };
    await doctorRun(store, opts, name, runDir, git, deps);
  } finally {
    git.close();
  }
}

/** `splintercat doctor [--repair|--rebuild]`: validate a run's state, journal, lock and refs; fix what can be fixed. */
export function registerDoctor(program: Command): Command {
  return program
    .command('doctor')
    .description('validate the run state and refs; --repair restores, --rebuild reconstructs')
    .option('--name <name>', 'the merge (default: imerge.name from the configuration)')
    .option('--repair', 'restore state.json from its backup and repair inconsistencies')
    .option('--rebuild', 'reconstruct the run state from the journal and the refs')
    .option('--json', 'machine-readable report on stdout')
    .action(doctor);
}

function finding(f: DoctorFinding): string {
  return `${f.severity}: ${f.message} (${f.file})${f.repairable ? ' [repairable]' : ''}`;
}

function lines(head: string, actions: string[], problems: string[], hint: string | null): string {
  return [head, ...actions.map((a) => `  - ${a}`), ...problems.map((p) => `  ${p}`), ...(hint ? [hint] : [])].join(
    '\n',
  );
}
