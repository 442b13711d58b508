import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { globalOptions, printResult } from '../context.js';

/** `splintercat init [--force]`: write a commented default splintercat.yaml. */
export function registerInit(program: Command): Command {
  return program
    .command('init')
    .description('write splintercat.yaml with commented defaults')
    .option('--force', 'overwrite an existing file')
    .action(async (opts: { force?: boolean }, cmd: Command) => {
      const { CONFIG_FILE_NAME } = await import('../../config/index.js');
      const { DEFAULT_CONFIG_YAML } = await import('../../config/default-file.js');
      const global = globalOptions(cmd);
      const path = resolve(global.cwd, global.config ?? CONFIG_FILE_NAME);
      if (existsSync(path) && !opts.force) {
        throw new UsageError('init_exists', {
          what: `${path} already exists`,
          why: 'init never overwrites a configuration unless asked',
          fix: [`Edit it, or run \`splintercat init --force\` to replace it with the defaults`],
        });
      }
      writeFileSync(path, DEFAULT_CONFIG_YAML);
      printResult(`Wrote ${path}. Next: set check.commands (build, test) and, for the LLM rungs, llm.*_model.`);
    });
}
