import type * as OpenAI from '@ai-sdk/openai';
import { loadProviderPackage, type ProviderPreset } from './preset.js';

/** OpenAI's chat completions API. */
export const openai: ProviderPreset<'openai'> = {
  name: 'openai',
  description: 'OpenAI',
  keyVariable: 'OPENAI_API_KEY',
  create: ({ apiKey, baseURL, fetch }) => {
    const { createOpenAI } = loadProviderPackage<typeof OpenAI>('@ai-sdk/openai');
    const p = createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}), ...(fetch ? { fetch } : {}) });
    return (id) => p.chat(id);
  },
};
