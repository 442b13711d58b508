import type { Command } from 'commander';
import { globalOptions, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';

/** `splintercat share REMOTE` and `splintercat join REMOTE NAME`: one merge, several clones. */
export function registerShare(program: Command): void {
  program
    .command('share')
    .description('share a merge already going through a git remote, so other clones can join it')
    .argument('<remote>', 'a git remote every clone can push to, e.g. origin')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .action(async (remote: string, opts: { name?: string }, cmd: Command) => {
      const [{ openCliRun }, { markShared }, { RunShare }, { nullLogger }] = await Promise.all([
        import('../run-context.js'),
        import('../../workflow/share/share-run.js'),
        import('../../workflow/share/run-share.js'),
        import('../../log/logger.js'),
      ]);
      const { config, git, store, name, state } = await openCliRun(globalOptions(cmd), opts.name, {
        runRequired: true,
        configRequired: false,
      });
      try {
        const run = name as string;
        await markShared(git, store, run, remote);
        const share = await RunShare.open(git, store, run, config.sync.lease, nullLogger);
        const published = state !== null && share !== null && (await share.publish(state));
        printResult(
          [
            published
              ? `Shared '${run}' on ${remote}: its records, engine refs and this clone's run are published.`
              : `'${run}' is marked shared on ${remote}; publishing failed now and is retried at each step of the run.`,
            `On another clone: splintercat join ${remote} ${run}   then   splintercat continue --name ${run}`,
          ].join('\n'),
        );
        if (!published) process.exitCode = ExitCode.Failed;
      } finally {
        git.close();
      }
    });

  program
    .command('join')
    .description('pick up a merge shared on a git remote in this clone, ready for continue')
    .argument('<remote>', 'the git remote it is shared on, e.g. origin')
    .argument('<name>', 'the merge to join (its --name)')
    .action(async (remote: string, name: string, _opts: unknown, cmd: Command) => {
      const [{ Git }, { RunStore, validateRunName }, { joinRun }] = await Promise.all([
        import('../../git/index.js'),
        import('../../store/index.js'),
        import('../../workflow/share/join-run.js'),
      ]);
      validateRunName(name);
      const git = new Git({ cwd: globalOptions(cmd).cwd });
      try {
        const store = await RunStore.forRepo(git);
        const joined = await joinRun(git, store, remote, name);
        const resolved = joined.state.conflicts.filter((c) => c.status === 'resolved').length;
        printResult(
          [
            `Joined '${name}' from ${remote} (the run as ${joined.from} last published it): ${resolved} conflict(s) resolved so far.`,
            ...(joined.createdBranch
              ? [
                  `Created ${joined.state.target.branch} at ${joined.state.target.originalOid.slice(0, 12)}, where the merge started.`,
                ]
              : []),
            `Next: splintercat continue --name ${name}   (takes the next conflict nobody holds)`,
          ].join('\n'),
        );
      } finally {
        git.close();
      }
    });
}
