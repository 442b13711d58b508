import type { Command } from 'commander';
import { configRequest, globalOptions, printResult } from '../context.js';

/** `splintercat continue`: resume a run after an interruption or a person's edit. */
export function registerContinue(program: Command): void {
  program
    .command('continue')
    .description('resume a merge (after an interruption or an edit by the person)')
    .option('--name <name>', 'the merge to resume (default: imerge.name)')
    .option('--interactive', 'show each check command and each resolution and ask before running or recording it')
    .option(
      '--accept-failure',
      'the failed check the hand-off shows is expected at this step: take the resolution as it is, and never blame those failing tests',
    )
    .action(async (opts: { name?: string; interactive?: boolean; acceptFailure?: boolean }, cmd: Command) => {
      const global = globalOptions(cmd);
      const [{ continueRun }, { configFor }, { report, openSession }] = await Promise.all([
        import('../../workflow/lifecycle.js'),
        import('../../workflow/config-for.js'),
        import('../merge-session.js'),
      ]);
      const { config, git, name, stored } = await configFor.run({
        ...configRequest(global),
        name: opts.name,
        runRequired: true,
        configRequired: true,
      });
      try {
        const session = openSession(global, config, opts.interactive);
        const { options } = session;
        const outcome = await continueRun(
          config,
          git,
          name ?? undefined,
          opts.acceptFailure ? { ...options, acceptFailure: true } : options,
          stored,
        ).finally(() => session.close());
        if (outcome.kind === 'already_done') {
          printResult(`The merge '${outcome.state.name}' is already finished: ${outcome.state.finalCommit ?? ''}`);
          return;
        }
        process.exitCode = report(outcome);
      } finally {
        git.close();
      }
    });
}
