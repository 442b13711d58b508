import type * as Anthropic from '@ai-sdk/anthropic';
import { loadProviderPackage, type ProviderPreset } from './preset.js';

/** Anthropic's messages API. */
export const anthropic: ProviderPreset<'anthropic'> = {
  name: 'anthropic',
  description: 'Anthropic',
  keyVariable: 'ANTHROPIC_API_KEY',
  create: ({ apiKey, baseURL, fetch }) => {
    const { createAnthropic } = loadProviderPackage<typeof Anthropic>('@ai-sdk/anthropic');
    const p = createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}), ...(fetch ? { fetch } : {}) });
    return (id) => p.languageModel(id);
  },
};
