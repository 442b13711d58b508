import type { Command } from 'commander';
import { configRequest, globalOptions, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { printableName } from '../../util/safe-print.js';

/** `splintercat share REMOTE` and `splintercat join REMOTE NAME`: one merge, several clones. */
export function registerShare(program: Command): void {
  program
    .command('share')
    .description('share a merge already going through a git remote, so other clones can join it')
    .argument('<remote>', 'a git remote every clone can push to, e.g. origin')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .action(async (remote: string, opts: { name?: string }, cmd: Command) => {
      const [{ configFor }, { markShared }, { RunShare }, { nullLogger }] = await Promise.all([
        import('../../workflow/config-for.js'),
        import('../../workflow/share/share-run.js'),
        import('../../workflow/share/run-share.js'),
        import('../../log/logger.js'),
      ]);
      const { config, git, store, name, state } = await configFor.run({
        ...configRequest(globalOptions(cmd)),
        name: opts.name,
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
    .action((remote: string, name: string, _opts: unknown, cmd: Command) => join(remote, name, cmd));
}

/** `join REMOTE NAME`: the run as the remote has it, in this clone, with this clone's own configuration. */
async function join(remote: string, name: string, cmd: Command): Promise<void> {
  const [{ Git }, { RunStore, validateRunName }, { joinRun }, { configFor }] = await Promise.all([
    import('../../git/index.js'),
    import('../../store/index.js'),
    import('../../workflow/share/join-run.js'),
    import('../../workflow/config-for.js'),
  ]);
  validateRunName(name);
  const global = globalOptions(cmd);
  // The run's configuration is this clone's own, as a merge started here would have it.
  const own = await configFor.newMerge(configRequest(global));
  const git = new Git({ cwd: own.config.target.workdir });
  // The run's log from its first step here: what `join` refused of the remote is in it.
  const { createCliLogger } = await import('../logger.js');
  const logs = createCliLogger(global, own.config);
  try {
    const store = await RunStore.forRepo(git);
    const joined = await joinRun(git, store, remote, name, own, logs.logger);
    if (joined.differs.length > 0) process.stderr.write(`${differsNotice(joined.from, joined.differs)}\n`);
    const resolved = joined.state.conflicts.filter((c) => c.status === 'resolved').length;
    printResult(
      [
        `Joined '${name}' from ${remote} (the run as ${printableName(joined.from)} last published it): ${resolved} conflict(s) resolved so far.`,
        ...(joined.createdBranch
          ? [
              `Created ${printableName(joined.state.fork.branch)} at ${joined.state.fork.originalOid.slice(0, 12)}, where the merge started.`,
            ]
          : []),
        `Next: splintercat continue --name ${name}   (takes the next conflict nobody holds)`,
      ].join('\n'),
    );
  } finally {
    logs.close();
    git.close();
  }
}

/** Keys named in one line at most: past these, how many more. */
const NAMED_KEYS = 12;

/** One line: the keys on which the machine's configuration differs from this clone's, which the run does not take. */
function differsNotice(machine: string, keys: string[]): string {
  const named = keys.slice(0, NAMED_KEYS).map(printableName).join(', ');
  const more = keys.length > NAMED_KEYS ? ` and ${keys.length - NAMED_KEYS} more` : '';
  return (
    `The run as ${printableName(machine)} published it has another configuration (${named}${more}); ` +
    'this clone runs it with its own splintercat.yaml (and --set), as a merge started here would.'
  );
}
