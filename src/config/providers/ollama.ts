import { openAICompatibleModels } from './openai-compatible.js';
import type { ProviderPreset } from './preset.js';

/** A local Ollama server through its OpenAI-compatible endpoint; it takes no key. */
export const ollama: ProviderPreset<'ollama'> = {
  name: 'ollama',
  description: "Ollama's OpenAI-compatible endpoint",
  keyVariable: null,
  defaultBaseUrl: 'http://localhost:11434/v1',
  startCommand: 'ollama serve',
  create: (settings) => openAICompatibleModels('ollama', settings),
};
