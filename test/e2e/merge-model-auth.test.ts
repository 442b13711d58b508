import { describe, expect, it } from 'vitest';
import type { TestRepo } from '../helpers/git-repo.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { mergeSections, oneConflictFork, writeModelConfig } from '../fixtures/resolve/model-repo.js';

/** A merge with one conflict, an OpenAI provider pointed at a server that rejects every key. */
async function rejectingSetup(llm: string[]): Promise<{ repo: TestRepo; server: LlmServer }> {
  const repo = oneConflictFork();
  const server = await startLlmServer({
    respond: () => ({ kind: 'error', status: 401, body: { error: { message: 'Incorrect API key provided' } } }),
  });
  writeModelConfig(repo, server.baseURL, { provider: 'openai', llm, before: mergeSections });
  return { repo, server };
}

describe('a 401 during merge names the key to fix', () => {
  it('the planner rejected: names OPENAI_API_KEY, says what to fix and how to resume, exit 2, no stack, no key', async () => {
    const { repo, server } = await rejectingSetup(['  resolver_model: m', '  planner_model: m']);
    const key = 'sk-rejected-0123456789abcdef';
    const run = await runCli(['merge', 'upstream'], repo.dir, { OPENAI_API_KEY: key });
    expect(server.requests.length).toBeGreaterThan(0);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/The merge 'up' failed: The planner model \(m\) rejected the API key \(HTTP 401\)/);
    expect(run.stderr).toMatch(/OPENAI_API_KEY is invalid, expired or missing the rights/);
    expect(run.stderr).toMatch(/Set a valid key in OPENAI_API_KEY/);
    expect(run.stderr).toMatch(/Then resume: splintercat continue --name up/);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.stderr + run.stdout).not.toContain(key);
  });

  it('the resolver rejected a key from the configuration: names llm.api_key', async () => {
    const { repo } = await rejectingSetup(['  resolver_model: m', '  api_key: sk-in-config-0123456789']);
    const run = await runCli(['merge', 'upstream'], repo.dir, { OPENAI_API_KEY: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/The resolver model \(m\) rejected the API key \(HTTP 401\)/);
    expect(run.stderr).toMatch(/llm\.api_key is invalid/);
    expect(run.stderr).toMatch(/Set a valid key in splintercat\.yaml under llm\.api_key/);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.stderr + run.stdout).not.toContain('sk-in-config-0123456789');
  });
});
