import type { Command } from 'commander';
import { configRequest, globalOptions, printJson, printResult } from '../context.js';

/** `splintercat status`: progress, the grid around its frontier (`--grid`: all of it), conflicts by rung, checks, attempts and cost. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('progress, grid around the frontier, conflicts by rung, checks, attempts, cost')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .option('--json', 'the same as data on stdout')
    .option('--grid', 'draw the whole grid (by default: the rows around the frontier)')
    .action(async (opts: { name?: string; json?: boolean; grid?: boolean }, cmd: Command) => {
      // The status text's own modules (not report/index.js: the HTML page and the ui server), loaded
      // while the run is opened (its git processes run meanwhile).
      const report = Promise.all([
        import('../../report/build-model.js'),
        import('../../report/load-run.js'),
        import('../../report/status-text.js'),
      ]);
      report.catch(() => undefined); // awaited below; an error opening the run must not leave it unhandled
      const { configFor } = await import('../../workflow/config-for.js');
      const {
        config,
        git,
        store,
        name: chosen,
        state,
      } = await configFor.run({
        ...configRequest(globalOptions(cmd)),
        name: opts.name,
        runRequired: true,
        configRequired: false,
      });
      try {
        const [{ buildReportModel }, { loadRunSnapshot }, { renderStatusText, statusData }] = await report;
        const name = chosen as string;
        // The state configFor.run read (null when unreadable: then read again, to give its error).
        const snapshot = await loadRunSnapshot(git, store, name, {
          details: false,
          ...(state !== null && state.name === name ? { state } : {}),
        });
        if (!snapshot) {
          printResult(`No run state for '${name}'. Try: splintercat doctor --name ${name}`);
          process.exitCode = 1;
          return;
        }
        // The hunks a person was handed, as they stand now: those settled by `take` since are gone.
        if (snapshot.state.handoff) {
          const { handoffAsLeft } = await import('../../workflow/handoff/index.js');
          snapshot.state = { ...snapshot.state, handoff: await handoffAsLeft(snapshot.state.handoff) };
        }
        const model = buildReportModel(snapshot, { now: new Date() });
        const { shareStatus, renderShareStatus } = await import('../../workflow/share/share-status.js');
        const share = await shareStatus(git, store, name, config.sync.lease);
        if (opts.json) printJson({ ...statusData(model), ...(share ? { share } : {}) });
        else
          printResult(
            renderStatusText(model, { grid: opts.grid === true }) + (share ? `\n${renderShareStatus(share)}` : ''),
          );
      } finally {
        git.close();
      }
    });
}
