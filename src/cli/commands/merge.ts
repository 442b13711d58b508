import { InvalidArgumentError, Option, type Command } from 'commander';
import { RESOLVER_MODES, strategyNames } from '../../config/goals.js';
import { currentResolverMode } from '../../config/old-keys.js';
import { configRequest, globalOptions } from '../context.js';
import type { MergeOptions } from '../merge-session.js';

/** `splintercat merge SOURCE`: start a run. */
export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description('merge SOURCE into the fork branch: resolve, check, recover, finish')
    .argument('<source>', 'what to merge from, e.g. upstream/main')
    .option('--into <branch>', 'the branch that receives the merge (default: target.branch, else the current branch)')
    .option('--name <name>', 'name of this merge (default: imerge.name)')
    .addOption(
      // Kept for scripts that pass it: merge produces only a merge commit, so the option is not shown.
      new Option('--goal <goal>', 'what to produce: a merge commit').choices(['merge']).hideHelp(),
    )
    .addOption(new Option('--strategy <strategy>', 'how often to check').choices(['auto', ...strategyNames]))
    .addOption(
      new Option('--resolver <mode>', 'auto = ladder then model; llm; person = stop for the person')
        .choices(RESOLVER_MODES)
        .argParser(resolverMode),
    )
    .option('--no-first-parent', 'follow every parent on each axis instead of first parents')
    .option('--interactive', 'show each check command and each resolution and ask before running or recording it')
    .option('--restart', 'drop an existing merge of the same name first (as abort does; the resolution cache is kept)')
    .option('--remote <remote>', 'share the merge through this git remote: other clones join it and take conflicts')
    .action(async (source: string, opts: MergeOptions, cmd: Command) => {
      const [{ configFor }, { mergeFlags, startMerge }] = await Promise.all([
        import('../../workflow/config-for.js'),
        import('../merge-session.js'),
      ]);
      const global = globalOptions(cmd);
      const { config, stored } = await configFor.newMerge(configRequest(global), mergeFlags(opts));
      process.exitCode = await startMerge(global, config, source, opts, stored);
    });
}

/** `--resolver`: one of RESOLVER_MODES, an earlier version's spelling read as today's. */
function resolverMode(value: string): string {
  const mode = currentResolverMode(value);
  if (typeof mode === 'string' && (RESOLVER_MODES as readonly string[]).includes(mode)) return mode;
  throw new InvalidArgumentError(`Allowed choices are ${RESOLVER_MODES.join(', ')}.`);
}
