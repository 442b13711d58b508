import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLlmServer } from '../helpers/llm-server.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { conflictedMerge, writeModelConfig } from '../fixtures/resolve/model-repo.js';

describe('splintercat resolve with a model configured (rung 3 over a real HTTP provider)', () => {
  it('hands the hunk the rules leave to the resolver agent, validates, stages it, exit 0', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, { llm: ['  resolver_model: scripted-resolver'] });
    server.enqueue(
      { kind: 'tool_calls', calls: [{ name: 'view_conflict', args: { file: 'b.txt', conflict_num: 1 } }] },
      {
        kind: 'tool_calls',
        calls: [
          {
            name: 'resolve_conflict',
            args: { file: 'b.txt', conflict_num: 1, choice: 'custom', custom_text: 'beta main and feature\n' },
          },
        ],
      },
      { kind: 'tool_calls', calls: [{ name: 'submit_resolution', args: { file: 'b.txt' } }] },
    );
    const run = await runCli(['resolve'], repo.dir);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/b\.txt: resolved and staged \(hunk 1 by model \(scripted-resolver\)\)/);
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toBe('alpha\nbeta main and feature\ngamma\n');
    expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('');
    expect(server.requests.length).toBe(3);
    // The conflict reached the model as delimited data, with the tools offered.
    const first = JSON.stringify(server.requests[0]?.body);
    expect(first).toContain('view_conflict');
    expect(first).toContain('beta feature');
  });

  it('--no-model keeps the ladder offline: the hunk is left for the person (exit 3), no request sent', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, { llm: ['  resolver_model: scripted-resolver'] });
    const run = await runCli(['resolve', '--no-model'], repo.dir);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/b\.txt: 1 hunk\(s\) left/);
    expect(server.requests).toHaveLength(0);
  });

  it('a model that gives up leaves the file as git wrote it and exits 3', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, { llm: ['  resolver_model: scripted-resolver'] });
    const before = readFileSync(join(repo.dir, 'b.txt'), 'utf8');
    server.enqueue({ kind: 'error', status: 401, body: { error: { message: 'bad key' } } });
    const run = await runCli(['resolve'], repo.dir);
    expect([2, 3]).toContain(run.code);
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toBe(before);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
