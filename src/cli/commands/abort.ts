import type { Command } from 'commander';
import { configRequest, globalOptions, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import type { AbortOutcome } from '../../workflow/lifecycle.js';
import { printableName, shellWord } from '../../util/safe-print.js';

type Finished = Extract<AbortOutcome, { finished: unknown }>;

/** `splintercat abort`: remove a run's refs, worktrees and state, and leave the fork branch as it was. */
export function registerAbort(program: Command): void {
  program
    .command('abort')
    .description('remove the merge state and worktrees, restore the original branch')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .action(async (opts: { name?: string }, cmd: Command) => {
      const { configFor } = await import('../../workflow/config-for.js');
      const { abortRun } = await import('../../workflow/lifecycle.js');
      const { config, git, name } = await configFor.run({
        ...configRequest(globalOptions(cmd)),
        name: opts.name,
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
        if ('finished' in outcome) {
          printResult(finishedText(outcome));
          return;
        }
        const branch = outcome.fork ? ` ${untouched(outcome.fork, outcome.tip ?? null)}` : '';
        const freed = outcome.released?.length ? ` Released your claims on ${outcome.released.join(', ')}.` : '';
        printResult(
          `Aborted '${outcome.name}': its refs, worktrees and run state are removed.${branch} The resolution cache is kept.${freed}`,
        );
      } finally {
        git.close();
      }
    });
}

/** The run never moves the fork branch before its merge commit: where it is, said as it is. */
function untouched(fork: { branch: string; originalOid: string }, tip: string | null): string {
  const branch = printableName(fork.branch);
  const start = fork.originalOid.slice(0, 12);
  if (tip === null || tip === fork.originalOid) return `${branch} is untouched at ${start}.`;
  return `${branch} was not moved by the run (it was at ${start} when the run started; it is at ${tip.slice(0, 12)} now).`;
}

/** `abort` of a finished run: nothing to abort; where the merge is, and that its record stays. */
function finishedText(outcome: Finished): string {
  const { finished: f, fork } = outcome;
  const branch = printableName(fork.branch);
  const commit = f.commit.slice(0, 12);
  const where =
    f.tip === f.commit
      ? `${branch} is at its merge commit ${commit}`
      : `its merge commit is ${commit} (${branch} is ${f.tip === null ? 'gone' : `at ${f.tip.slice(0, 12)} now`})`;
  const lines = [
    `The merge '${printableName(outcome.name)}' is finished, nothing to abort: ${where}, the merge of ${printableName(outcome.upstream)}.`,
    'Nothing was removed: its record stays for splintercat status and splintercat report.',
  ];
  if (!f.recorded) lines.push('Its last steps were interrupted: splintercat continue finishes them.');
  if (f.tip === f.commit)
    lines.push(
      `To undo the merge itself: git reset --keep ${fork.originalOid.slice(0, 12)}   # where ${branch} is checked out`,
    );
  const name = outcome.name === 'upstream-merge' ? '' : ` --name ${shellWord(outcome.name)}`;
  lines.push(
    `To start another merge under this name: splintercat merge ${shellWord(outcome.upstream)} --restart${name}`,
  );
  return lines.join('\n');
}
