import type { Command } from 'commander';
import { Git } from '../../git/index.js';
import { IncrementalMerge, listImerges } from '../../imerge/index.js';
import { RunStore } from '../../store/index.js';
import { WorktreePool } from '../../workflow/worktrees.js';
import { buildReportModel, loadRunSnapshot, renderStatusText, statusData } from '../../report/index.js';
import { loadRunState } from '../../store/run-persistence.js';
import { join } from 'node:path';
import { globalOptions, loadCliConfig, printJson, printResult } from '../context.js';
import { onlyRun } from './merge.js';

/** `splintercat status` and `splintercat abort`. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('progress, grid diagram, conflicts by rung, checks, attempts, cost')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .option('--json', 'the same as data on stdout')
    .action(async (opts: { name?: string; json?: boolean }, cmd: Command) => {
      const { config } = loadCliConfig(globalOptions(cmd));
      const git = new Git({ cwd: config.target.workdir });
      try {
        const store = await RunStore.forRepo(git);
        const name = opts.name ?? onlyRun(store, config);
        const snapshot = await loadRunSnapshot(git, store, name, { details: false });
        if (!snapshot) {
          printResult(`No run state for '${name}'. Try: splintercat doctor --name ${name}`);
          process.exitCode = 1;
          return;
        }
        const model = buildReportModel(snapshot, { now: new Date() });
        if (opts.json) printJson(statusData(model));
        else printResult(renderStatusText(model));
      } finally {
        git.close();
      }
    });

  program
    .command('abort')
    .description('remove the merge state and worktrees, restore the original branch')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .action(async (opts: { name?: string }, cmd: Command) => {
      const { config } = loadCliConfig(globalOptions(cmd));
      const git = new Git({ cwd: config.target.workdir });
      try {
        const store = await RunStore.forRepo(git);
        const name = opts.name ?? onlyRun(store, config);
        const state = store.exists(name) ? loadRunState(store.paths(name)) : null;
        const pool = new WorktreePool(git, join(await git.gitDir(), 'splintercat', name, 'worktrees'));
        await pool.removeRun(state?.conflicts.map((c) => c.cell) ?? []);
        if ((await listImerges(git)).includes(name)) await (await IncrementalMerge.load(git, name)).removeRefs();
        const removed = store.exists(name) ? store.remove(name) : { ok: true as const };
        if (!removed.ok) {
          process.stderr.write(`The merge '${name}' is being driven by another process; stop it first.\n`);
          process.exitCode = 1;
          return;
        }
        const branch = state ? ` ${state.target.branch} is untouched at ${state.target.originalOid.slice(0, 12)}.` : '';
        printResult(`Aborted '${name}': its refs, worktrees and run state are removed.${branch} The resolution cache is kept.`);
      } finally {
        git.close();
      }
    });
}
