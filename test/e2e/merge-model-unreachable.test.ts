import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { chainRepo, writeChainConfig } from '../fixtures/workflow/chain-repo.js';

/** An address nothing listens at: a port this process had, closed again (connection refused). */
async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as { port: number };
  await new Promise<void>((closed) => server.close(() => closed()));
  return `http://127.0.0.1:${port}/v1`;
}

/** A merge with one conflict no rule settles, its resolver model behind `provider` at `baseURL`. */
function unreachableSetup(provider: string, baseURL: string): TestRepo {
  const repo = chainRepo(
    1,
    () => 'fork',
    () => 'upstream',
  );
  writeChainConfig(repo.dir, [
    'llm:',
    `  provider: ${provider}`,
    `  base_url: ${baseURL}`,
    '  resolver_model: m',
    '  max_retries: 0',
  ]);
  return repo;
}

describe('a provider that refuses the connection, at a hand-off', () => {
  it('Ollama: the hand-off names the address it tried and says to start it with `ollama serve`', async () => {
    const base = await closedAddress();
    const run = await runCli(['merge', 'upstream'], unreachableSetup('ollama', base).dir);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      `m tried vals.txt and was refused (model_failed): The resolver model (m) could not connect to ${base}/chat/completions (connection refused): start the ollama server: \`ollama serve\``,
    );
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  });

  it('another server: the hand-off names the base URL to start or correct', async () => {
    const base = await closedAddress();
    const run = await runCli(['merge', 'upstream'], unreachableSetup('openai-compatible', base).dir);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      `could not connect to ${base}/chat/completions (connection refused): start the server that llm.base_url names (${base}), or correct llm.base_url`,
    );
  });
});
