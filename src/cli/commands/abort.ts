import type { Command } from 'commander';
import { globalOptions, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';

/** `splintercat abort`: remove a run's refs, worktrees and state, and leave the target branch as it was. */
export function registerAbort(program: Command): void {
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
