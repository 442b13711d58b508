import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { SplintercatError, UsageError } from '../../errors/index.js';
import type { DoctorFinding } from '../../store/index.js';
import { globalOptions, printJson, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';

interface DoctorOptions {
  name?: string;
  repair?: boolean;
  rebuild?: boolean;
  json?: boolean;
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
    .action(async (opts: DoctorOptions, cmd: Command) => {
      if (opts.repair && opts.rebuild) {
        throw new UsageError('doctor_flags', {
          what: '--repair and --rebuild cannot be used together',
          fix: 'Try --repair first; use --rebuild when it says so',
        });
      }
      const { openCliRun } = await import('../run-context.js');
      const { rebuildRun, repairRun, validateRun } = await import('../../store/index.js');
      const { configFromStored } = await import('../../config/index.js');
      const { runWorktreesDir } = await import('../../workflow/worktrees.js');
      const global = globalOptions(cmd);
      const opened = await openCliRun(global, opts.name, { runRequired: false, configRequired: false });
      const { config, git, store } = opened;
      const name = opened.name ?? config.imerge.name;
      try {
        const runDir = store.paths(name).dir;
        if (!existsSync(runDir)) {
          const known = store.list().map((r) => r.name);
          throw new SplintercatError('run_missing', {
            what: `There is no splintercat run named '${name}' in ${config.target.workdir}`,
            why: known.length > 0 ? `Runs found: ${known.join(', ')}` : 'No run has been started in this repository',
            fix:
              known.length > 0 ? `splintercat doctor --name ${known[0]}` : 'Start one with `splintercat merge SOURCE`',
          });
        }
        const deps = {
          worktreesDir: runWorktreesDir(
            opened.state?.config ? configFromStored(opened.state.config, { env: {} }).config : config,
            dirname(store.root),
            name,
          ),
        };
        if (opts.rebuild) {
          const report = await rebuildRun(runDir, git);
          if (opts.json) printJson(report);
          else
            printResult(
              lines(
                report.ok ? `Rebuilt run '${name}'` : `Run '${name}' could not be rebuilt completely`,
                report.actions,
                report.lost.map((l) => `lost: ${l}`),
                report.hint,
              ),
            );
          if (!report.ok) process.exitCode = ExitCode.Failed;
          return;
        }
        if (opts.repair) {
          const report = await repairRun(runDir, git, deps);
          if (opts.json) printJson(report);
          else {
            const head = report.ok
              ? `Repaired run '${name}'`
              : `Run '${name}' is not repaired: ${report.remaining.filter((f) => f.severity === 'error').length} problem(s) remain${report.actions.length > 0 ? ` after ${report.actions.length} change(s)` : ''}`;
            printResult(lines(head, report.actions, report.remaining.map(finding), report.hint));
          }
          if (!report.ok) process.exitCode = ExitCode.Failed;
          return;
        }
        const report = await validateRun(runDir, git, deps);
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
        if (!report.ok) process.exitCode = ExitCode.Failed;
      } finally {
        git.close();
      }
    });
}

function finding(f: DoctorFinding): string {
  return `${f.severity}: ${f.message} (${f.file})${f.repairable ? ' [repairable]' : ''}`;
}

function lines(head: string, actions: string[], problems: string[], hint: string | null): string {
  return [head, ...actions.map((a) => `  - ${a}`), ...problems.map((p) => `  ${p}`), ...(hint ? [hint] : [])].join(
    '\n',
  );
}
