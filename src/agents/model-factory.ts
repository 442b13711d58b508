import type { LanguageModelV3 } from '@ai-sdk/provider';
import { providerPreset } from '../config/providers/index.js';
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
  /** Where it is reached (`llm.base_url` or the preset's address; absent: the provider package's own). */
  baseURL?: string;
  /** How to start its local server, when its preset says (named when nothing answers there). */
  startCommand?: string;
}

/** Per role: the model, or null = offline for that role (callers use the deterministic fallback). */
export type RoleModels = Record<ModelRole, ModelHandle | null>;

export interface ModelFactoryOptions {
  /** Custom fetch (tests, proxies). */
  fetch?: typeof fetch;
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
    reviewer: llm.reviewer_model,
    summarizer: llm.summarizer_model,
    planner: llm.planner_model,
  };
  const configured = modelRoles.filter((r) => ids[r].trim() !== '');
  const out: RoleModels = { resolver: null, reviewer: null, summarizer: null, planner: null };
  if (configured.length === 0) return out;

  const provider = llm.provider;
  const preset = providerPreset(provider);
  const variable = preset.keyVariable;
  const apiKey = llm.api_key !== '' ? llm.api_key : variable ? (env[variable] ?? '') : '';
  const keySource = llm.api_key !== '' ? 'llm.api_key' : variable;
  if (variable && apiKey.trim() === '') {
    throw new UsageError('model_key_missing', {
      what: `No API key for provider ${provider} (needed by the ${configured.join(', ')} model${configured.length > 1 ? 's' : ''})`,
      why: `${variable} is not set and llm.api_key is empty in the configuration.`,
      fix: [
        `export ${variable}=...   (or set llm.api_key in splintercat.yaml)`,
        'Or remove llm.resolver_model / reviewer_model / summarizer_model / planner_model to run offline',
      ],
      where: 'splintercat.yaml (llm.api_key) or the environment',
    });
  }
  const baseURL = llm.base_url.trim() === '' ? preset.defaultBaseUrl : llm.base_url.trim();
  if (preset.needsBaseUrl && baseURL === undefined) {
    throw new UsageError('model_base_url_missing', {
      what: `llm.provider is ${provider} but llm.base_url is empty`,
      why: 'A self-hosted server (vLLM, LM Studio) has no usual address.',
      fix: ["Set llm.base_url to the server's OpenAI-compatible address, e.g. http://127.0.0.1:8000/v1"],
      where: 'splintercat.yaml (llm.base_url)',
    });
  }

  // Known as secrets from now on, wherever they turn up (a provider's error echoing the key, a URL printed).
  registerSecrets([apiKey, ...urlCredentials(baseURL ?? '')]);
  const make = preset.create({ apiKey, baseURL, ...(options.fetch ? { fetch: options.fetch } : {}) });
  for (const role of configured) {
    out[role] = {
      role,
      provider,
      modelId: ids[role],
      keyVariable: keySource,
      model: make(ids[role]),
      ...(baseURL !== undefined ? { baseURL } : {}),
      ...(preset.startCommand !== undefined ? { startCommand: preset.startCommand } : {}),
    };
  }
  return out;
}
