import { Command, Option } from 'commander';
import { registerCommands } from './commands/index.js';

const VERSION = '0.1.0';

/**
 * The root program: global options, then the commands. With `argv` (as process.argv), only the
 * command it names is loaded and registered, and none for a bare `--version`: start-up then costs
 * what that command uses.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = withGlobalOptions(new Command('splintercat'))
    .description(
      // One paragraph: commander wraps it to the terminal, and a line break of ours would break its lines twice.
      'Merge a large upstream branch into a long-lived fork: incremental in-memory merges, ' +
        'a resolution ladder (cache, rules, LLM agent, person), build/test checks, durable resume.',
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false });
  // Before the commands exist, so every subcommand inherits it: main() turns commander errors into exit 2.
  program.exitOverride();
  const named = argv === undefined ? undefined : commandNamed(argv);
  if (named !== null) await registerCommands(program, named);
  return program;
}

/** The options of the root program, which every command accepts before its name. */
function withGlobalOptions(command: Command): Command {
  return command
    .option('-v, --verbose', 'debug output on the console, stack traces on errors', false)
    .option('-c, --config <file>', 'configuration file (default: ./splintercat.yaml)')
    .option('-s, --set <key.path=value>', 'override one configuration key (repeatable)', collect, [])
    .addOption(new Option('-C <dir>', 'run as if started in <dir>').hideHelp(false));
}

/**
 * The command `argv` names (its first operand after the global options), read by a throwaway
 * program with the same global options; null for `--version` with no command (nothing to
 * register); undefined when there is no command name (help, usage errors: register them all).
 */
function commandNamed(argv: readonly string[]): string | null | undefined {
  const probe = withGlobalOptions(new Command())
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  let parsed;
  try {
    parsed = probe.parseOptions(argv.slice(2));
  } catch {
    return undefined; // a bad global option: the real parse reports it
  }
  const { operands, unknown } = parsed;
  const first = operands[0];
  if (first !== undefined) return first;
  return unknown[0] === '-V' || unknown[0] === '--version' ? null : undefined;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
