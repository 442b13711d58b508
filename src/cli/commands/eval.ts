import { existsSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import type { Config } from '../../config/index.js';
import type { Git } from '../../git/index.js';
import type * as ResolveIndex from '../../resolve/index.js';
import type { LadderFallback } from '../../resolve/index.js';
import { configRequest, globalOptions, printJson, printResult } from '../context.js';

interface EvalOptions {
  corpus?: string;
  repo?: string;
  limit?: number;
  since?: string;
  json?: boolean;
  withModel?: boolean;
  allRules?: boolean;
  learnt?: boolean;
}

/**
 * The model rung for `eval --with-model`: `registerEval(program, { modelFallback })`
 * plugs the LLM resolver in once src/agents provides it; without it
 * `--with-model` is refused with a clear message rather than silently scoring
 * the rules alone. `usage()` is read after the run for the tokens/cost line.
 */
export type EvalFallbackFactory = (
  config: Config,
  git: Git,
) => Promise<{
  fallback: LadderFallback;
  usage: () => { inputTokens: number; outputTokens: number; costUsd: number; hunksResolved: number };
}>;

/** The options given, checked: exactly one source, a real date, a model rung when asked for. */
function checkEvalOptions(opts: EvalOptions, deps: { modelFallback?: EvalFallbackFactory }): Date | undefined {
  if ((opts.corpus === undefined) === (opts.repo === undefined)) {
    throw new UsageError('eval_source', {
      what: 'eval needs exactly one of --corpus DIR or --repo PATH',
      fix: ['splintercat eval --corpus ../shared/corpus', 'splintercat eval --repo . --limit 50'],
    });
  }
  let since: Date | undefined;
  if (opts.since !== undefined) {
    since = new Date(opts.since);
    if (Number.isNaN(since.getTime())) {
      throw new UsageError('eval_since', {
        what: `--since '${opts.since}' is not a date`,
        fix: 'Use an ISO date such as 2024-01-31',
      });
    }
  }
  if (opts.withModel && !deps.modelFallback) {
    throw new UsageError('eval_model_unavailable', {
      what: '--with-model: the model rung is not available in this build',
      why: 'the LLM resolver has not been wired into eval yet',
      fix: 'Run eval without --with-model to score the cache and rules',
    });
  }
  return since;
}

type ResolveModule = typeof ResolveIndex;
type EvalCases = Awaited<ReturnType<ResolveModule['readCorpus']>>;

/** The merges of `source` that conflict on replay, as cases; the skipped ones go to `skipped`. */
async function casesFromRepo(
  resolve: ResolveModule,
  git: Git,
  source: string,
  opts: EvalOptions,
  skipped: Array<{ id: string; reason: string }>,
): Promise<EvalCases> {
  if (!existsSync(source)) {
    throw new UsageError('eval_repo_missing', {
      what: `--repo ${source} does not exist`,
      fix: 'Pass the path of a git repository',
    });
  }
  const inRepo = (await git.run(['rev-parse', '--git-dir'], { okExitCodes: [0, 128] })).exitCode === 0;
  if (!inRepo)
    throw new UsageError('eval_not_a_repo', {
      what: `--repo ${source} is not a git repository`,
      fix: 'Pass the path of a git repository',
    });
  const mined = await resolve.mineMerges(git, { limit: opts.limit, since: opts.since });
  process.stderr.write(
    `mined ${mined.mergesSeen} two-parent merges: ${mined.mergesConflicting} conflict on replay, ${mined.mergesCrissCross} criss-cross skipped\n`,
  );
  skipped.push(...mined.skipped);
  return mined.cases;
}

async function runEvalCommand(
  opts: EvalOptions,
  cmd: Command,
  deps: { modelFallback?: EvalFallbackFactory },
): Promise<void> {
  const global = globalOptions(cmd);
  const since = checkEvalOptions(opts, deps);
  const { configFor } = await import('../../workflow/config-for.js');
  const { Git } = await import('../../git/index.js');
  const resolve = await import('../../resolve/index.js');
  const { config, warnings } = await configFor.inMerge(configRequest(global));
  const setup = await resolve.ladderFromConfig(config.resolve, null, { allRules: opts.allRules });
  for (const w of [...warnings, ...setup.warnings]) process.stderr.write(`warning: ${w}\n`);
  const abs = (p: string): string => (isAbsolute(p) ? p : resolvePath(global.cwd, p));
  const git = new Git({ cwd: opts.repo !== undefined ? abs(opts.repo) : global.cwd });
  try {
    const model = opts.withModel && deps.modelFallback ? await deps.modelFallback(config, git) : undefined;
    const extraSkipped: Array<{ id: string; reason: string }> = [];
    const source = abs(opts.corpus ?? (opts.repo as string));
    const cases =
      opts.corpus !== undefined
        ? await resolve.readCorpus(source, { limit: opts.limit, since })
        : await casesFromRepo(resolve, git, source, opts, extraSkipped);
    const report = await resolve.runEval(source, cases, {
      git,
      rules: setup.rules,
      syntax: setup.syntax,
      fallback: model?.fallback,
      learnt: Boolean(opts.learnt),
    });
    report.skipped.push(...extraSkipped);
    if (model) report.model = model.usage();
    if (opts.json) printJson(report);
    else printResult(resolve.formatEvalReport(report));
  } finally {
    git.close();
  }
}

/** `splintercat eval --corpus DIR | --repo PATH`: score the ladder against the resolutions people committed. */
export function registerEval(program: Command, deps: { modelFallback?: EvalFallbackFactory } = {}): Command {
  return program
    .command('eval')
    .description('score the resolution ladder on past merges (--repo) or a corpus (--corpus)')
    .option('--corpus <dir>', 'a conflict corpus (index.jsonl + cases/)')
    .option('--repo <path>', 'a repository whose two-parent merges are replayed and compared')
    .addOption(
      new Option('--limit <n>', 'at most N cases (--corpus) or conflicting merges (--repo)').argParser(positiveInt),
    )
    .option('--since <date>', 'only merges committed since DATE')
    .option('--json', 'machine-readable report on stdout')
    .option('--all-rules', 'enable every rule, also those off by default')
    .option('--with-model', 'also run the LLM resolver (rung 3) on hunks the rules leave')
    .option(
      '--learnt',
      'also score the suggestions learnt from earlier merges (only merges before the one replayed) on the hunks the ladder leaves',
    )
    .action((opts: EvalOptions, cmd: Command) => runEvalCommand(opts, cmd, deps));
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) {
    throw new UsageError('eval_limit', {
      what: `--limit '${value}' is not a positive whole number`,
      fix: 'Use for example --limit 20',
    });
  }
  return n;
}
