import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { globalOptions, printResult } from '../context.js';
import type { InitCiOptions } from './init-ci.js';

/** How many past merges init reads, and for how long at most, unless told otherwise. */
const HISTORY_MERGES = 200;
const HISTORY_SECONDS = 30;

interface InitOptions {
  force?: boolean;
  propose?: boolean;
  history: boolean;
  historyMerges: number;
  historySeconds: number;
}

function positive(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError('init_history', {
      what: `${flag} '${value}' is not a positive whole number`,
      fix: `Use for example ${flag} ${flag === '--history-merges' ? HISTORY_MERGES : HISTORY_SECONDS}`,
    });
  return n;
}

/** `splintercat init [--force] [--ci KIND]`: write a commented default splintercat.yaml, or the CI job of `check.runner`. */
export function registerInit(program: Command): Command {
  return program
    .command('init')
    .description('write splintercat.yaml with commented defaults')
    .option('--force', 'overwrite an existing file')
    .option(
      '--propose',
      "print the policy (resolve.paths) the repository's past merges propose, with its evidence; write nothing",
    )
    .option('--no-history', "do not read the repository's past merges to propose a policy (resolve.paths)")
    .addOption(
      new Option('--history-merges <n>', 'read at most the N most recent past merges')
        .default(HISTORY_MERGES)
        .argParser((v) => positive(v, '--history-merges')),
    )
    .addOption(
      new Option('--history-seconds <s>', 'stop replaying past merges after S seconds (older ones are left out)')
        .default(HISTORY_SECONDS)
        .argParser((v) => positive(v, '--history-seconds')),
    )
    .option('--ci <kind>', 'write the job that runs checks on CI runners (github | gitlab | hook) and set check.runner')
    .option('--remote <name>', 'with --ci: the git remote the CI watches', 'origin')
    .option('--out <dir>', 'with --ci hook: where to write the hook and its job', 'splintercat-ci')
    .option(
      '--command <shell>',
      'with --ci: how the runner starts splintercat (default: this version, installed outside the checkout; hook: this one)',
    )
    .action(async (opts: InitOptions & Partial<InitCiOptions>, cmd: Command) => {
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
      if (opts.propose) {
        printResult(await printedProposal(global.cwd, path, opts));
        return;
      }
      if (existsSync(path) && !opts.force) {
        throw new UsageError('init_exists', {
          what: `${path} already exists`,
          why: 'init never overwrites a configuration unless asked',
          fix: [
            `Edit it, or run \`splintercat init --force\` to replace it with the defaults`,
            'To see what the past merges propose without touching it: `splintercat init --propose`',
          ],
        });
      }
      const proposal = opts.history ? await proposeFromHistory(global.cwd, opts) : null;
      const text = proposal
        ? DEFAULT_CONFIG_YAML.replace('\n  paths: {}\n', () => `\n${proposal.comment}`)
        : DEFAULT_CONFIG_YAML;
      writeFileSync(path, text);
      printResult(
        [
          `Wrote ${path}. Next: set check.commands (build, test: without them a merge is made but not validated) and, for the LLM rungs, llm.*_model.`,
          ...(proposal && proposal.rules > 0
            ? [
                `It proposes ${proposal.rules} resolve.paths line(s) from the repository's past merges, commented out: accept them line by line.`,
              ]
            : []),
        ].join('\n'),
      );
    });
}

/**
 * `init --propose`: the policy the past merges propose, for a person to read and copy what they
 * accept into the configuration; the configuration is never touched.
 */
async function printedProposal(cwd: string, path: string, opts: InitOptions): Promise<string> {
  const proposal = await proposeFromHistory(cwd, opts);
  if (proposal === null) return 'Not in a git repository with commits: no past merges to propose a policy from.';
  const { printableLine } = await import('../../util/safe-print.js');
  const how =
    proposal.rules > 0
      ? `Nothing was written. To accept a line, add it without its \`# \` under resolve.paths in ${path}.`
      : 'Nothing was written.';
  return [printableLine(how), ...proposal.comment.trimEnd().split('\n').map(printableLine)].join('\n');
}

/**
 * The policy the repository's recent merges propose, as comment lines for the file; null outside a
 * repository (init works anywhere). Each merge is replayed once and remembered (`resolve.learnt`).
 */
async function proposeFromHistory(
  cwd: string,
  opts: Pick<InitOptions, 'historyMerges' | 'historySeconds'>,
): Promise<{ comment: string; rules: number } | null> {
  const { Git } = await import('../../git/index.js');
  const { learnHistory } = await import('../../resolve/learnt/history.js');
  const { proposeWithEvidence, withProposal } = await import('../../resolve/policy/propose-policy.js');
  const git = new Git({ cwd });
  try {
    const head = await git.run(['rev-parse', '--verify', '-q', 'HEAD'], { okExitCodes: [0, 1, 128] });
    if (head.exitCode !== 0) return null;
    const history = await learnHistory(git, 'HEAD', {
      limit: opts.historyMerges,
      budgetMs: opts.historySeconds * 1000,
      onRead: (done, total) => {
        if (done === 1 || done % 10 === 0 || done === total)
          process.stderr.write(`reading past merges: ${done} of ${total}\n`);
      },
    });
    const proposal = proposeWithEvidence(history.hunks);
    const read =
      history.leftOut > 0
        ? `the ${history.merges} most recent merges read in ${opts.historySeconds} s (${history.leftOut} older ones of the latest ${history.merges + history.leftOut} left out; --history-seconds reads longer)`
        : `this repository's ${history.merges} most recent merges${history.merges === opts.historyMerges ? ' (at most that many are read: older ones, if any, are left out; --history-merges reads more)' : ''}`;
    if (history.leftOut > 0)
      process.stderr.write(
        `reading past merges: stopped after ${opts.historySeconds} s at ${history.merges} of ${history.merges + history.leftOut}; the older ones are left out\n`,
      );
    return {
      comment: withProposal('  paths: {}\n', proposal, read),
      rules: proposal.rules.length,
    };
  } finally {
    git.close();
  }
}
