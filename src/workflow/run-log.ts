import { existsSync } from 'node:fs';
import { SplintercatError, UsageError } from '../errors/index.js';
import { mainLogPath } from '../log/create-logger.js';
import type { RunConfig } from './config-for.js';

/**
 * The log of the run a command opened: `splintercat.log` in the run's own `log.dir` (the file every
 * error message names). Throws, saying what to do, when the run or its log does not exist.
 */
export function runLogPath(run: Pick<RunConfig, 'config' | 'store' | 'name'>): string {
  const name = run.name ?? run.config.imerge.name;
  if (!run.store.exists(name)) {
    const known = run.store.list().map((r) => r.name);
    throw new UsageError('run_missing', {
      what: `There is no splintercat run named '${name}' in ${run.config.target.workdir}`,
      why: known.length > 0 ? `Runs found: ${known.join(', ')}` : 'No run has been started in this repository',
      fix: known.length > 0 ? `splintercat log ${known[0]}` : 'Start one with `splintercat merge SOURCE`',
    });
  }
  const path = mainLogPath(run.config.log.dir);
  if (!existsSync(path)) {
    throw new SplintercatError('run_log_missing', {
      what: `The run '${name}' has no log: ${path} does not exist`,
      why: `The run's commands write it in its log.dir (${run.config.log.dir}); it was deleted, or no command of the run has written it yet`,
      fix: [
        `\`splintercat status --name ${name}\` shows where the run stands (from its state and journal)`,
        'The next `splintercat continue` of the run writes the log again',
      ],
    });
  }
  return path;
}
