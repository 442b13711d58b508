import type { Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { configRequest, globalOptions, printResult } from '../context.js';
import { loadReportModel } from './report.js';

/** The default port of `splintercat ui` (on 127.0.0.1 only). */
export const DEFAULT_UI_PORT = 7420;

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError('ui_port_invalid', {
      what: `'${value}' is not a port number`,
      fix: 'Use --port N with 0 <= N <= 65535 (0: any free port)',
    });
  }
  return port;
}

/** `splintercat ui [--port N]`: a live, read-only web view of a running or finished merge on 127.0.0.1, until Ctrl-C. */
export function registerUi(program: Command): Command {
  return program
    .command('ui')
    .description('serve a live, read-only web view of a merge on 127.0.0.1 (until Ctrl-C)')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .option('--port <port>', `port on 127.0.0.1 (0: any free port)`, parsePort, DEFAULT_UI_PORT)
    .action(async (opts: { name?: string; port: number }, cmd: Command) => {
      const { configFor } = await import('../../workflow/config-for.js');
      const { buildReportModel, checkLogDir, checkLogPath, loadRunSnapshot, newSnapshotCache, startUiServer } =
        await import('../../report/index.js');
      const { loadRunState, openRunJournal } = await import('../../store/run-persistence.js');
      const opened = await configFor.run({
        ...configRequest(globalOptions(cmd)),
        name: opts.name,
        runRequired: true,
        configRequired: false,
      });
      const { git, store } = opened;
      try {
        const name = opened.name as string;
        await loadReportModel(git, store, name); // fails early, with a fix, when the run has no state
        const paths = store.paths(name);
        const cache = newSnapshotCache();
        const server = await startUiServer({
          port: opts.port,
          journal: openRunJournal(paths),
          loadModel: async () => {
            const snapshot = await loadRunSnapshot(git, store, name, { cache });
            if (!snapshot) throw new Error(`the run state of '${name}' is gone (aborted?)`);
            return buildReportModel(snapshot, { now: new Date() });
          },
          checkLog: (index) => {
            const state = loadRunState(paths);
            const check = state?.checks[index];
            if (!state || !check) return null;
            const path = checkLogPath(state, check.logFile);
            return { path, dir: checkLogDir(state, path) };
          },
        });
        printResult(`Serving merge '${name}' at ${server.url} (read-only, 127.0.0.1 only). Ctrl-C stops it.`);
        await new Promise<void>((resolve) => {
          const stop = (): void => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            resolve();
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        await server.close();
      } finally {
        git.close();
      }
    });
}
