import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createRequire } from 'node:module';
import type * as Anthropic from '@ai-sdk/anthropic';
import type * as OpenAI from '@ai-sdk/openai';
import type * as OpenAICompatible from '@ai-sdk/openai-compatible';
import type * as OpenRouter from '@openrouter/ai-sdk-provider';
import type { Config, ProviderName } from '../config/schema.js';
import { urlCredentials } from '../config/secret-sources.js';
import { UsageError } from '../errors/index.js';
import { registerSecrets } from '../util/secret-registry.js';
import { modelRoles, type ModelRole } from './usage.js';

/** One role's model, ready to call. */
export interface ModelHandle {
  role: ModelRole;
  provider: ProviderName;
  modelId: string;
  /** Where the key came from (named in auth errors); null for a keyless local server. */
  keyVariable: string | null;
  model: LanguageModelV3;
}

/** Per role: the model, or null = offline for that role (callers use the deterministic fallback). */
export type RoleModels = Record<ModelRole, ModelHandle | null>;

export interface ModelFactoryOptions {
  /** Custom fetch (tests, proxies). */
  fetch?: typeof fetch;
}

const keyVariables: Record<ProviderName, string | null> = {
  openrouter: 'OPENROUTER_API_KEY',
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': null,
};

/** The environment variable a provider's key is read from (null: no key needed). */
export function keyVariableFor(provider: ProviderName): string | null {
  return keyVariables[provider];
}

/** True when no role has a model: the whole run is offline. */
export function isOffline(models: RoleModels): boolean {
  return modelRoles.every((r) => models[r] === null);
}

/**
 * Build the model of each role from config `llm.*`. Fails at start (not at the
 * first call) when a configured provider has no key, naming the variable and
 * where to set it. A role without a model id is offline (null).
 */
export function createRoleModels(
  llm: Config['llm'],
  env: Record<string, string | undefined>,
  options: ModelFactoryOptions = {},
): RoleModels {
  const ids: Record<ModelRole, string> = {
    resolver: llm.resolver_model,
    summarizer: llm.summarizer_model,
    planner: llm.planner_model,
  };
  const configured = modelRoles.filter((r) => ids[r].trim() !== '');
  const out: RoleModels = { resolver: null, summarizer: null, planner: null };
  if (configured.length === 0) return out;

  const provider = llm.provider;
  const variable = keyVariables[provider];
  const apiKey = llm.api_key !== '' ? llm.api_key : variable ? (env[variable] ?? '') : '';
  const keySource = llm.api_key !== '' ? 'llm.api_key' : variable;
  if (variable && apiKey.trim() === '') {
    throw new UsageError('model_key_missing', {
      what: `No API key for provider ${provider} (needed by the ${configured.join(', ')} model${configured.length > 1 ? 's' : ''})`,
      why: `${variable} is not set and llm.api_key is empty in the configuration.`,
      fix: [
        `export ${variable}=...   (or set llm.api_key in splintercat.yaml)`,
        'Or remove llm.resolver_model / summarizer_model / planner_model to run offline',
      ],
      where: 'splintercat.yaml (llm.api_key) or the environment',
    });
  }
  const baseURL = llm.base_url.trim() === '' ? undefined : llm.base_url.trim();
  if (provider === 'openai-compatible' && baseURL === undefined) {
    throw new UsageError('model_base_url_missing', {
      what: 'llm.provider is openai-compatible but llm.base_url is empty',
      why: 'A local or self-hosted server (Ollama, vLLM, LM Studio) has no default address.',
      fix: ['Set llm.base_url, e.g. http://127.0.0.1:11434/v1 for Ollama'],
      where: 'splintercat.yaml (llm.base_url)',
    });
  }

  // Known as secrets from now on, wherever they turn up (a provider's error echoing the key, a URL printed).
  registerSecrets([apiKey, ...urlCredentials(baseURL ?? '')]);
  const make = createProvider(provider, apiKey, baseURL, options.fetch);
  for (const role of configured) {
    out[role] = { role, provider, modelId: ids[role], keyVariable: keySource, model: make(ids[role]) };
  }
  return out;
}

// A provider's package loads when a model of it is configured: a run with none, or with one
// provider, does not load the other three (faster start-up). Their errors are recognised by
// `APICallError.isInstance`, a marker shared across copies of the AI SDK.
const require = createRequire(import.meta.url);

function createProvider(
  provider: ProviderName,
  apiKey: string,
  baseURL: string | undefined,
  fetchImpl: typeof fetch | undefined,
): (id: string) => LanguageModelV3 {
  const common = { ...(baseURL ? { baseURL } : {}), ...(fetchImpl ? { fetch: fetchImpl } : {}) };
  switch (provider) {
    case 'openrouter': {
      const { createOpenRouter } = require('@openrouter/ai-sdk-provider') as typeof OpenRouter;
      const p = createOpenRouter({ apiKey, compatibility: 'strict', ...common });
      // usage.include asks OpenRouter for the call's cost (providerMetadata.openrouter.usage.cost).
      return (id) => p.chat(id, { usage: { include: true } });
    }
    case 'openai': {
      const { createOpenAI } = require('@ai-sdk/openai') as typeof OpenAI;
      const p = createOpenAI({ apiKey, ...common });
      return (id) => p.chat(id);
    }
    case 'anthropic': {
      const { createAnthropic } = require('@ai-sdk/anthropic') as typeof Anthropic;
      const p = createAnthropic({ apiKey, ...common });
      return (id) => p.languageModel(id);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = require('@ai-sdk/openai-compatible') as typeof OpenAICompatible;
      const p = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: baseURL ?? '',
        includeUsage: true,
        ...(apiKey ? { apiKey } : {}),
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
      });
      return (id) => p.chatModel(id);
    }
  }
}
