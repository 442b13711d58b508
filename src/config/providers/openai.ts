import type * as OpenAI from '@ai-sdk/openai';
import { clientOptions, loadProviderPackage, type ProviderPreset } from './preset.js';

/** OpenAI's chat completions API. */
export const openai: ProviderPreset<'openai'> = {
  name: 'openai',
  description: 'OpenAI',
  keyVariable: 'OPENAI_API_KEY',
  create: (settings) => {
    const { createOpenAI } = loadProviderPackage<typeof OpenAI>('@ai-sdk/openai');
    const p = createOpenAI(clientOptions(settings));
    return (id) => p.chat(id);
  },
};
