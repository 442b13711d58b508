import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createGatewayFromConfig, type ModelGateway } from '../agents/index.js';
import { CheckRegistry } from '../checks/check-registry.js';
import { createCheckRunner, remoteCheckRunner, runBuildDir } from '../checks/from-config.js';
import { summarizeCheckLog } from '../checks/failure-summary.js';
import type { CheckRunnerLike } from '../checks/types.js';
import type { Config } from '../config/index.js';
import type { Git } from '../git/index.js';
import type { Logger } from '../log/logger.js';
import { ladderFromConfig } from '../resolve/index.js';
import { RunStore } from '../store/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { imergeEngines } from './imerge-adapter.js';
import type { ResolutionApprover, WorkflowContext } from './ports.js';
import { WorktreePool } from './worktrees.js';
import { RunShare } from './share/run-share.js';

export interface RunDepsOptions {
  log: Logger;
  clock?: Clock;
  /** Where the model providers read their keys (the CLI passes `process.env`); unused when `gateway` is given. */
  env?: NodeJS.ProcessEnv;
  /** Another check runner (tests, benchmarks); default: the CheckRunner of `check.*`. */
  checks?: CheckRunnerLike;
  /** The models; null = offline. Default: the gateway of `llm.*` and `env`. */
  gateway?: ModelGateway | null;
  /** `--interactive`: wraps the checks (ask before each) and approves each resolution. */
  interactive?: { checks: (inner: CheckRunnerLike) => CheckRunnerLike; approver: ResolutionApprover };
}

/**
 * Everything a run of `name` needs, built in one place: git, config, the check runner, the
 * models, the clock, the log, the run store, the worktrees, the engine factory, the ladder and
 * the failure extractor. The machine runner adds only what a step needs (signal, journal, once).
 */
export async function createRunDeps(
  config: Config,
  git: Git,
  name: string,
  options: RunDepsOptions,
): Promise<WorkflowContext> {
  const { log } = options;
  const clock = options.clock ?? systemClock;
  const store = await RunStore.forRepo(git, { clock });
  const buildDir = runBuildDir(config, name);
  const remote = options.checks === undefined ? remoteCheckRunner(config, git, name, { logger: log, clock }) : null;
  const runner =
    options.checks === undefined && remote === null
      ? createCheckRunner(config, { logger: log, clock, registry: runningChecks(store, name), buildDir })
      : null;
  const checks = runner ?? remote ?? (options.checks as CheckRunnerLike);
  const ladder = await ladderFromConfig(config.resolve, git, { log });
  const sharing = { ...config.sync, commands: config.check.commands, cache: ladder.cache };
  const gateway =
    options.gateway !== undefined ? options.gateway : createGatewayFromConfig(config, options.env ?? {}, { log });
  const share = await RunShare.open(git, store, name, sharing, log, clock);
  const jobs = config.imerge.jobs > 0 ? config.imerge.jobs : availableParallelism();
  return {
    git,
    config,
    engines: imergeEngines(git, jobs, { shared: share !== null }),
    checks: options.interactive ? options.interactive.checks(checks) : checks,
    preflight: (names) => runner?.preflight(names) ?? remote?.preflight(names) ?? [],
    worktrees: await WorktreePool.forRun(git, config, name),
    ladder,
    gateway,
    extractFailure: (text, result, options = {}) => summarizeCheckLog(text, result, options),
    store,
    clock,
    log,
    approver: options.interactive?.approver ?? null,
    buildDir,
    share,
  };
}

/** Where a run records the process groups of its running checks (`checks.json` in its directory). */
export function runningChecks(store: RunStore, name: string): CheckRegistry {
  return new CheckRegistry(join(store.paths(name).dir, 'checks.json'));
}
