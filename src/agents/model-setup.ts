import type { CheckRunnerLike } from '../checks/types.js';
import type { Config } from '../config/schema.js';
import { UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import type { Logger } from '../log/logger.js';
import { createRoleModels, isOffline, type ModelFactoryOptions } from './model-factory.js';
import { ModelGateway } from './model-gateway.js';
import { createModelRung, type ModelRung } from './model-rung.js';

/**
 * The run's model gateway from the loaded configuration, or null when no role
 * has a model (offline). Throws a UsageError at once when a key is missing.
 */
export function createGatewayFromConfig(
  config: Pick<Config, 'llm' | 'budget'>,
  env: Record<string, string | undefined>,
  options: ModelFactoryOptions & { log?: Logger } = {},
): ModelGateway | null {
  const models = createRoleModels(config.llm, env, options.fetch ? { fetch: options.fetch } : {});
  if (isOffline(models)) return null;
  return new ModelGateway({
    models,
    llm: config.llm,
    budgetUsd: config.budget.usd,
    ...(options.log ? { log: options.log } : {}),
  });
}

/**
 * What `splintercat resolve` (and `eval --with-model`) needs: the model rung
 * when `llm.resolver_model` is set, else null (the ladder runs without rung 3).
 */
export function createModelRungFromConfig(
  config: Pick<Config, 'llm' | 'budget'>,
  env: Record<string, string | undefined>,
  deps: {
    git: Git;
    workdir?: string;
    runCheck?: CheckRunnerLike | null;
    log?: Logger;
    gateway?: ModelGateway | null;
    instructions?: string;
  },
): ModelRung | null {
  const gateway =
    deps.gateway !== undefined ? deps.gateway : createGatewayFromConfig(config, env, deps.log ? { log: deps.log } : {});
  if (!gateway || !config.llm.resolver_model) return null;
  return createModelRung({
    gateway,
    git: deps.git,
    ...(deps.workdir !== undefined ? { workdir: deps.workdir } : {}),
    runCheck: deps.runCheck ?? null,
    maxTurns: config.llm.max_turns,
    candidates: config.llm.candidates,
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.instructions ? { instructions: deps.instructions } : {}),
  });
}

/**
 * For `eval --with-model` (`registerEval(program, { modelFallback })`): the
 * model rung in a scratch repository, or a UsageError when no resolver model
 * is configured. The returned object matches `EvalFallbackFactory`'s result.
 */
export async function requireModelRungFromConfig(
  config: Pick<Config, 'llm' | 'budget'>,
  env: Record<string, string | undefined>,
  deps: { git: Git; log?: Logger },
): Promise<ModelRung> {
  const rung = createModelRungFromConfig(config, env, deps);
  if (!rung) {
    throw new UsageError('model_not_configured', {
      what: 'No resolver model is configured',
      why: '--with-model runs the LLM resolver, which needs llm.resolver_model.',
      fix: ['Set llm.resolver_model (and llm.provider / the key) in splintercat.yaml, or run without --with-model'],
      where: 'splintercat.yaml (llm.resolver_model)',
    });
  }
  return rung;
}
