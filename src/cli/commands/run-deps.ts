import { createGatewayFromConfig } from '../../agents/index.js';
import type { CheckRunner } from '../../checks/check-runner.js';
import { createCheckRunner } from '../../checks/from-config.js';
import { extractFailure } from '../../checks/extract-failure.js';
import type { Config } from '../../config/index.js';
import type { Git } from '../../git/index.js';
import type { Logger } from '../../log/logger.js';
import type { WorkflowContext } from '../../workflow/ports.js';
import { buildWorkflowContext } from '../../workflow/setup.js';
import { approvingChecks, terminalApprover, type Prompter } from '../interactive.js';

/** `--interactive`: ask on this prompter; `stop` halts the run at its next safe point. */
export interface InteractiveOptions {
  prompter: Prompter;
  stop: () => void;
}

/** The real dependencies of a merge run: the CheckRunner, the models from config, the engine. */
export async function runContext(
  config: Config,
  git: Git,
  name: string,
  log: Logger,
  interactive?: InteractiveOptions,
): Promise<{ ctx: WorkflowContext; checks: CheckRunner }> {
  const checks = createCheckRunner(config, { logger: log });
  const gateway = createGatewayFromConfig(config, process.env, { log });
  const ctx = await buildWorkflowContext(config, git, name, {
    checks: interactive ? approvingChecks(checks, interactive.prompter, config.check.commands, interactive.stop) : checks,
    approver: interactive ? terminalApprover(interactive.prompter) : null,
    gateway,
    extractFailure: (text, result) => extractFailure(text, { timedOut: result.timedOut }),
    log,
  });
  return { ctx, checks };
}
