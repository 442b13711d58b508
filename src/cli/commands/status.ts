import type { Command } from 'commander';
import { globalOptions, printJson, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';

/** `splintercat status` and `splintercat abort`. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('progress, grid diagram, conflicts by rung, checks, attempts, cost')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .option('--json', 'the same as data on stdout')
    .action(async (opts: { name?: string; json?: boolean }, cmd: Command) => {
      // The status text's own modules (not report/index.js: the HTML page and the ui server), loaded
      // while the run is opened (its git processes run meanwhile).
      const report = Promise.all([
        import('../../report/build-model.js'),
        import('../../report/load-run.js'),
        import('../../report/status-text.js'),
      ]);
      report.catch(() => undefined); // awaited below; an error opening the run must not leave it unhandled
      const { openCliRun } = await import('../run-context.js');
      const {
        config,
        git,
        store,
        name: chosen,
        state,
      } = await openCliRun(globalOptions(cmd), opts.name, { runRequired: true, configRequired: false });
      try {
        const [{ buildReportModel }, { loadRunSnapshot }, { renderStatusText, statusData }] = await report;
        const name = chosen as string;
        // The state openCliRun read (null when unreadable: then read again, to give its error).
        const snapshot = await loadRunSnapshot(git, store, name, {
          details: false,
          ...(state !== null && state.name === name ? { state } : {}),
        });
        if (!snapshot) {
          printResult(`No run state for '${name}'. Try: splintercat doctor --name ${name}`);
          process.exitCode = 1;
          return;
        }
        const model = buildReportModel(snapshot, { now: new Date() });
        const { shareStatus, renderShareStatus } = await import('../../workflow/share/share-status.js');
        const share = await shareStatus(git, store, name, config.sync.lease);
        if (opts.json) printJson({ ...statusData(model), ...(share ? { share } : {}) });
        else printResult(renderStatusText(model) + (share ? `\n${renderShareStatus(share)}` : ''));
      } finally {
        git.close();
      }
    });

  program
    .command('abort')
    .description('remove the merge state and worktrees, restore the original branch')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .action(async (opts: { name?: string }, cmd: Command) => {
      const { openCliRun } = await import('../run-context.js');
      const { abortRun } = await import('../../workflow/lifecycle.js');
      const { config, git, name } = await openCliRun(globalOptions(cmd), opts.name, {
        runRequired: true,
        configRequired: false,
      });
      try {
        const outcome = await abortRun(config, git, name ?? undefined);
        if (!outcome.ok) {
          process.stderr.write(`The merge '${outcome.name}' is being driven by another process; stop it first.\n`);
          process.exitCode = ExitCode.Failed;
          return;
        }
        const branch = outcome.target
          ? ` ${outcome.target.branch} is untouched at ${outcome.target.originalOid.slice(0, 12)}.`
          : '';
        const freed = outcome.released?.length ? ` Released your claims on ${outcome.released.join(', ')}.` : '';
        printResult(
          `Aborted '${outcome.name}': its refs, worktrees and run state are removed.${branch} The resolution cache is kept.${freed}`,
        );
      } finally {
        git.close();
      }
    });
}
