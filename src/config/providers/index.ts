/**
 * The model providers `llm.provider` may name: one `ProviderPreset` record per provider, one file each.
 * Adding one: its file, one entry in `providerPresets`, its test (CONTRIBUTING.md).
 * @module
 */
import { anthropic } from './anthropic.js';
import { ollama } from './ollama.js';
import { openai } from './openai.js';
import { openaiCompatible } from './openai-compatible.js';
import { openrouter } from './openrouter.js';
import type { ProviderPreset } from './preset.js';

export type { ProviderPreset } from './preset.js';

/** Every provider, in the order the default config lists them; the first is the default. */
export const providerPresets = [openrouter, openai, anthropic, openaiCompatible, ollama] as const;

export type ProviderName = (typeof providerPresets)[number]['name'];

export const providerNames = providerPresets.map((p) => p.name) as [ProviderName, ...ProviderName[]];

/** The preset `llm.provider` names (the schema has already checked that one does). */
export function providerPreset(name: ProviderName): ProviderPreset {
  return providerPresets.find((p) => p.name === name) as ProviderPreset;
}
