import type { Command } from 'commander';
import { UsageError } from '../errors/index.js';

/** Register a command whose implementation has not landed yet: it exits 2 with one line. */
export function registerNotAvailable(program: Command, name: string, description: string, usage?: string): Command {
  return program
    .command(name)
    .description(description)
    .usage(usage ?? '[options]')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new UsageError('not_available', {
        what: `'splintercat ${name}' is not available yet in this version`,
      });
    });
}
