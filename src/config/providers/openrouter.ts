import type * as OpenRouter from '@openrouter/ai-sdk-provider';
import { clientOptions, loadProviderPackage, type ProviderPreset } from './preset.js';

/** OpenRouter: many vendors' models behind one key, and it reports each call's cost. */
export const openrouter: ProviderPreset<'openrouter'> = {
  name: 'openrouter',
  description: 'OpenRouter',
  keyVariable: 'OPENROUTER_API_KEY',
  create: (settings) => {
    const { createOpenRouter } = loadProviderPackage<typeof OpenRouter>('@openrouter/ai-sdk-provider');
    const p = createOpenRouter({ ...clientOptions(settings), compatibility: 'strict' });
    // usage.include asks OpenRouter for the call's cost (providerMetadata.openrouter.usage.cost).
    return (id) => p.chat(id, { usage: { include: true } });
  },
};
