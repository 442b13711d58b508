import type * as Anthropic from '@ai-sdk/anthropic';
import { clientOptions, loadProviderPackage, type ProviderPreset } from './preset.js';

/** Anthropic's messages API. */
export const anthropic: ProviderPreset<'anthropic'> = {
  name: 'anthropic',
  description: 'Anthropic',
  keyVariable: 'ANTHROPIC_API_KEY',
  create: (settings) => {
    const { createAnthropic } = loadProviderPackage<typeof Anthropic>('@ai-sdk/anthropic');
    const p = createAnthropic(clientOptions(settings));
    return (id) => p.languageModel(id);
  },
};
