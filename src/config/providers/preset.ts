import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createRequire } from 'node:module';

/** How to reach a provider once its key and address are settled (by `createRoleModels`). */
export interface ProviderSettings {
  /** The key; empty for a keyless local server. */
  apiKey: string;
  /** `llm.base_url` when set, else the preset's `defaultBaseUrl`; undefined = the provider package's own. */
  baseURL: string | undefined;
  /** Custom fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/**
 * One model provider that `llm.provider` may name: one record per provider, one file each, listed once in
 * `index.ts` (the config schema's enum and the default config's comment are derived from that list).
 */
export interface ProviderPreset<Name extends string = string> {
  /** The value of `llm.provider`. */
  name: Name;
  /** What it is, in a few words, for the default config's comment. */
  description: string;
  /** The environment variable its key is read from when `llm.api_key` is empty; null = it needs no key. */
  keyVariable: string | null;
  /** Where it is reached when `llm.base_url` is empty; absent = the provider package's own address. */
  defaultBaseUrl?: string;
  /** True when there is no usual address, so `llm.base_url` must be set. */
  needsBaseUrl?: boolean;
  /** A local server's start command, said when nothing answers at its address (`ollama serve`). */
  startCommand?: string;
  /** A factory of its chat models; it loads the provider's package, so only a configured provider is loaded. */
  create(settings: ProviderSettings): (modelId: string) => LanguageModelV3;
}

/** The options every AI SDK provider factory takes, without the unset ones (they would override its defaults). */
export function clientOptions({ apiKey, baseURL, fetch }: ProviderSettings): {
  apiKey: string;
  baseURL?: string;
  fetch?: typeof fetch;
} {
  return { apiKey, ...(baseURL ? { baseURL } : {}), ...(fetch ? { fetch } : {}) };
}

const require = createRequire(import.meta.url);

/**
 * Load a provider's package when a model of it is configured: a run with none, or with one provider, does not
 * load the others (start-up time). The name is not a literal, so the CLI bundle keeps the package outside it.
 * Provider errors are still recognised by `APICallError.isInstance`, a marker shared across copies of the AI SDK.
 */
export function loadProviderPackage<T>(name: string): T {
  return require(name) as T;
}
