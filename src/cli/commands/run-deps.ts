import { createGatewayFromConfig } from '../../agents/index.js';
import { CheckRunner } from '../../checks/check-runner.js';
import { extractFailure } from '../../checks/extract-failure.js';
import type { Config } from '../../config/index.js';
import type { Git } from '../../git/index.js';
import type { Logger } from '../../log/logger.js';
import type { WorkflowContext } from '../../workflow/ports.js';
import { buildWorkflowContext } from '../../workflow/setup.js';

/** The real dependencies of a merge run: the CheckRunner, the models from config, the engine. */
export async function runContext(config: Config, git: Git, name: string, log: Logger): Promise<{ ctx: WorkflowContext; checks: CheckRunner }> {
  const checks = new CheckRunner({
    workdir: config.target.workdir,
    outputDir: config.check.output_dir,
    commands: config.check.commands,
    timeoutSec: config.check.timeout,
    killGraceSec: config.check.kill_grace,
    logger: log,
    onOutput: undefined,
  } as ConstructorParameters<typeof CheckRunner>[0]);
  const gateway = createGatewayFromConfig(config, process.env, { log });
  const ctx = await buildWorkflowContext(config, git, name, {
    checks,
    gateway,
    extractFailure: (text, result) => extractFailure(text, { timedOut: result.timedOut }),
    log,
  });
  return { ctx, checks };
}
