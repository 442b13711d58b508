import { Command, Option } from 'commander';
import { registerCommands } from './commands/index.js';

export const VERSION = '0.1.0';

/** The root program: global options, then every command of design.md §9. */
export function buildProgram(): Command {
  const program = new Command('splintercat')
    .description(
      'Merge a large upstream branch into a long-lived fork: incremental in-memory merges,\n' +
        'a resolution ladder (cache, rules, LLM agent, human), build/test checks, durable resume.',
    )
    .version(VERSION, '-V, --version')
    .option('-v, --verbose', 'debug output on the console, stack traces on errors', false)
    .option('-c, --config <file>', 'configuration file (default: ./splintercat.yaml)')
    .option('-s, --set <key.path=value>', 'override one configuration key (repeatable)', collect, [])
    .addOption(new Option('-C <dir>', 'run as if started in <dir>').hideHelp(false))
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false });
  // Before the commands exist, so every subcommand inherits it: main() turns commander errors into exit 2.
  program.exitOverride();
  registerCommands(program);
  return program;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
