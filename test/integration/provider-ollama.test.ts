import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createRoleModels } from '../../src/agents/model-factory.js';
import { DEFAULT_CONFIG_YAML } from '../../src/config/default-file.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import { startLlmServer } from '../helpers/llm-server.js';

function ollamaConfig(baseUrl: string): Config['llm'] {
  return configSchema.parse({ llm: { provider: 'ollama', base_url: baseUrl, resolver_model: 'qwen2.5-coder:7b' } }).llm;
}

describe('the ollama provider preset', () => {
  it('is a value of llm.provider, listed in the default config with its address', () => {
    expect(ollamaConfig('').provider).toBe('ollama');
    expect(DEFAULT_CONFIG_YAML).toContain(
      "  #   ollama             Ollama's OpenAI-compatible endpoint; key: llm.api_key if it needs one; base_url: http://localhost:11434/v1\n",
    );
  });

  it('talks to an OpenAI-compatible server with no key and no Authorization header', async () => {
    const server = await startLlmServer();
    server.enqueue({ kind: 'text', text: 'merged', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const models = createRoleModels(ollamaConfig(server.baseURL), {});
    expect(models.resolver).toMatchObject({ provider: 'ollama', modelId: 'qwen2.5-coder:7b', keyVariable: null });
    const result = await generateText({ model: models.resolver!.model, prompt: 'resolve this' });
    expect(result.text).toBe('merged');
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 3 });
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect((server.requests[0]?.body as { model: string }).model).toBe('qwen2.5-coder:7b');
  });

  it("with llm.base_url empty it calls Ollama's usual address, http://localhost:11434/v1", async () => {
    const server = await startLlmServer();
    server.enqueue({ kind: 'text', text: 'ok' });
    const asked: string[] = [];
    // Relays to the local server, so the test needs no Ollama on port 11434.
    const relay: typeof fetch = (input, init) => {
      asked.push(String(input));
      return fetch(String(input).replace('http://localhost:11434/v1', server.baseURL), init);
    };
    const models = createRoleModels(ollamaConfig(''), {}, { fetch: relay });
    expect((await generateText({ model: models.resolver!.model, prompt: 'hi' })).text).toBe('ok');
    expect(asked).toEqual(['http://localhost:11434/v1/chat/completions']);
  });
});
