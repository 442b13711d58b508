import type * as OpenAICompatible from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { loadProviderPackage, type ProviderPreset, type ProviderSettings } from './preset.js';

/**
 * A chat model of any server speaking OpenAI's chat completions API at `baseURL`, sending the key only when
 * there is one (local servers take none). Presets for such servers build their models with it.
 */
export function openAICompatibleModels(
  name: string,
  { apiKey, baseURL, fetch }: ProviderSettings,
): (modelId: string) => LanguageModelV3 {
  const { createOpenAICompatible } = loadProviderPackage<typeof OpenAICompatible>('@ai-sdk/openai-compatible');
  const p = createOpenAICompatible({
    name,
    baseURL: baseURL ?? '',
    includeUsage: true,
    ...(apiKey ? { apiKey } : {}),
    ...(fetch ? { fetch } : {}),
  });
  return (id: string) => p.chatModel(id);
}

/** Any OpenAI-compatible server at `llm.base_url` (vLLM, LM Studio, llama.cpp, a proxy). */
export const openaiCompatible: ProviderPreset<'openai-compatible'> = {
  name: 'openai-compatible',
  description: 'any OpenAI-compatible server (vLLM, LM Studio)',
  keyVariable: null,
  needsBaseUrl: true,
  create: (settings) => openAICompatibleModels('openai-compatible', settings),
};
