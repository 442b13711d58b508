#!/usr/bin/env node
import { CommanderError } from 'commander';
import { SplintercatError } from '../errors/index.js';
import { ExitCode, exitCodeOf } from './exit-codes.js';
import { currentLogFile } from './context.js';
import { formatError } from './format-error.js';
import { terminalText } from '../util/safe-print.js';
import { buildProgram } from './program.js';

// zod compiles a fast path (`new Function`) for each object schema on its first parse; a CLI
// process parses each schema a few times, so the compiling costs more than it saves. Set as zod's global configuration (what `z.config({ jitless: true })` sets),
// before any command loads zod, so --version and a clean `driver` still never load it.
(globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig ??= { jitless: true };

/** Run the CLI; the only place that prints errors and chooses exit codes. */
export async function main(argv: string[]): Promise<number> {
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.Done;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      ) {
        return ExitCode.Done;
      }
      return ExitCode.Usage;
    }
    process.stderr.write(terminalText(formatError(error, verbose, currentLogFile())));
    return SplintercatError.isInstance(error) ? exitCodeOf(error.kind) : ExitCode.Failed;
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(terminalText(formatError(error, true)));
    process.exitCode = ExitCode.Failed;
  },
);
