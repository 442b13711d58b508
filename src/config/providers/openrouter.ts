import type * as OpenRouter from '@openrouter/ai-sdk-provider';
import { loadProviderPackage, type ProviderPreset } from './preset.js';

/** OpenRouter: many vendors' models behind one key, and it reports each call's cost. */
export const openrouter: ProviderPreset<'openrouter'> = {
  name: 'openrouter',
  description: 'OpenRouter',
  keyVariable: 'OPENROUTER_API_KEY',
  create: ({ apiKey, baseURL, fetch }) => {
    const { createOpenRouter } = loadProviderPackage<typeof OpenRouter>('@openrouter/ai-sdk-provider');
    const p = createOpenRouter({
      apiKey,
      compatibility: 'strict',
      ...(baseURL ? { baseURL } : {}),
      ...(fetch ? { fetch } : {}),
    });
    // usage.include asks OpenRouter for the call's cost (providerMetadata.openrouter.usage.cost).
    return (id) => p.chat(id, { usage: { include: true } });
  },
};
