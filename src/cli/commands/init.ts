import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { globalOptions, printResult } from '../context.js';
import type { InitCiOptions } from './init-ci.js';

/** `splintercat init [--force] [--ci KIND]`: write a commented default splintercat.yaml, or the CI job of `check.runner`. */
export function registerInit(program: Command): Command {
  return program
    .command('init')
    .description('write splintercat.yaml with commented defaults')
    .option('--force', 'overwrite an existing file')
    .option('--ci <kind>', 'write the job that runs checks on CI runners (github | gitlab | hook) and set check.runner')
    .option('--remote <name>', 'with --ci: the git remote the CI watches', 'origin')
    .option('--out <dir>', 'with --ci hook: where to write the hook and its job', 'splintercat-ci')
    .option(
      '--command <shell>',
      'with --ci: how the runner starts splintercat (default: npx --yes splintercat; hook: this one)',
    )
    .action(async (opts: { force?: boolean } & Partial<InitCiOptions>, cmd: Command) => {
      const { CONFIG_FILE_NAME } = await import('../../config/index.js');
      const { DEFAULT_CONFIG_YAML } = await import('../../config/default-file.js');
      const global = globalOptions(cmd);
      const path = resolve(global.cwd, global.config ?? CONFIG_FILE_NAME);
      if (opts.ci !== undefined) {
        const { initCi } = await import('./init-ci.js');
        printResult(
          await initCi(path, {
            ...opts,
            ci: opts.ci,
            remote: opts.remote ?? 'origin',
            out: opts.out ?? 'splintercat-ci',
          }),
        );
        return;
      }
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
