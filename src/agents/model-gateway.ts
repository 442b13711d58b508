import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Config } from '../config/schema.js';
import { nullLogger, type Logger } from '../log/logger.js';
import type { RoleModels } from './model-factory.js';
import { withResilience } from './resilience.js';
import { BudgetTracker, UsageTracker, type ModelRole } from './usage.js';

/** A role's model wrapped with retries, timeout, budget and usage accounting. */
export interface GuardedModel {
  model: LanguageModelV3;
  modelId: string;
  role: ModelRole;
}

export interface ModelGatewayOptions {
  models: RoleModels;
  llm: Pick<Config['llm'], 'timeout' | 'max_retries' | 'prices'>;
  /** `budget.usd`; 0 = no limit. */
  budgetUsd?: number;
  log?: Logger;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  baseDelayMs?: number;
}

/**
 * The one place agents get models from: per role (and per conflict, for
 * accounting) a model with the resilience tree applied, sharing one usage
 * tracker and one budget for the run.
 */
export class ModelGateway {
  readonly usage = new UsageTracker();
  readonly budget: BudgetTracker;

  constructor(private readonly options: ModelGatewayOptions) {
    this.budget = new BudgetTracker(options.budgetUsd ?? 0, this.usage);
  }

  /** The guarded model of a role; null when the role is offline. */
  model(role: ModelRole, conflict?: string): GuardedModel | null {
    const handle = this.options.models[role];
    if (!handle) return null;
    const o = this.options;
    const price = o.llm.prices[handle.modelId];
    const model = withResilience(handle.model, {
      role,
      modelId: handle.modelId,
      keyVariable: handle.keyVariable,
      server: { provider: handle.provider, baseURL: handle.baseURL, startCommand: handle.startCommand },
      timeoutMs: o.llm.timeout * 1000,
      maxRetries: o.llm.max_retries,
      usage: this.usage,
      budget: this.budget,
      ...(price ? { price } : {}),
      ...(conflict !== undefined ? { conflict } : {}),
      log: o.log ?? nullLogger,
      ...(o.sleep ? { sleep: o.sleep } : {}),
      ...(o.random ? { random: o.random } : {}),
      ...(o.baseDelayMs !== undefined ? { baseDelayMs: o.baseDelayMs } : {}),
    });
    return { model, modelId: handle.modelId, role };
  }
}
