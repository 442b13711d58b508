import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import type { Git } from '../git/index.js';
import { knownSecrets } from '../util/secret-registry.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../util/clock.js';
import type { CheckRegistry } from './check-registry.js';
import { CheckRunner } from './check-runner.js';
import { RemoteCheckRunner } from './remote/remote-runner.js';

export interface CheckRunnerDeps {
  /** The environment checks start from, scrubbed of secrets (default: this process's). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  clock?: Clock;
  onOutput?: (chunk: string) => void;
  /** Records running checks' process groups (a run's `checks.json`). */
  registry?: CheckRegistry;
  /** The run's out-of-tree build directory (see `runBuildDir`). */
  buildDir?: string | null;
}

/** The build directory of run `name`: `<check.build_dir>/<name>`, or null when none is configured. */
export function runBuildDir(config: Config, name: string): string | null {
  return config.check.build_dir === '' ? null : join(config.check.build_dir, name);
}

/**
 * The CheckRunner that `check.*` describes: commands, timeouts, logs, setup, sandbox,
 * writable directories and passthrough variables; `llm.api_key` is a secret to scrub and
 * redact (the provider variable holding it is scrubbed by its `*_KEY` name), and with any
 * model configured, unconfined checks are warned about.
 */
export function createCheckRunner(config: Config, deps: CheckRunnerDeps = {}): CheckRunner {
  const { check, llm } = config;
  return new CheckRunner({
    workdir: config.target.workdir,
    outputDir: config.log.dir,
    commands: check.commands,
    timeoutSec: check.timeout,
    killGraceSec: check.kill_grace,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.registry ? { registry: deps.registry } : {}),
    ...(deps.buildDir ? { buildDir: deps.buildDir } : {}),
    ...(deps.onOutput ? { onOutput: deps.onOutput } : {}),
    env: deps.env ?? process.env,
    secrets: [...(llm.api_key === '' ? [] : [llm.api_key]), ...knownSecrets()],
    envPassthrough: check.env_passthrough,
    sandbox: check.sandbox,
    writable: check.writable,
    readable: check.readable,
    setupNetwork: check.setup_network,
    setup: check.setup,
    setupWhen: check.setup_when,
    modelConfigured: [llm.resolver_model, llm.reviewer_model, llm.summarizer_model, llm.planner_model].some(
      (m) => m.trim() !== '',
    ),
  });
}

/**
 * The RemoteCheckRunner of `check.runner` for run `run`, or null when checks run on this machine
 * (no `check.runner.remote`).
 */
export function remoteCheckRunner(
  config: Config,
  git: Git,
  run: string,
  deps: Pick<CheckRunnerDeps, 'logger' | 'clock'> = {},
): RemoteCheckRunner | null {
  const { check } = config;
  if (check.runner.remote === '') return null;
  return new RemoteCheckRunner({
    git,
    remote: check.runner.remote,
    run,
    workdir: config.target.workdir,
    outputDir: config.log.dir,
    commands: check.commands,
    setup: check.setup,
    setupNetwork: check.setup_network,
    setupWhen: check.setup_when,
    timeoutSec: check.timeout,
    killGraceSec: check.kill_grace,
    trigger: check.runner.trigger,
    jobs: check.runner.job_files,
    parallel: check.runner.parallel,
    pollMs: check.runner.poll * 1000,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
}
