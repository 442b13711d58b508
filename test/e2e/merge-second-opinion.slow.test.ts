import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLlmServer, type RecordedRequest, type ScriptedReply } from '../helpers/llm-server.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { mergeSections, oneConflictFork, writeModelConfig } from '../fixtures/resolve/model-repo.js';

/**
 * The resolver writes `v1 = both` and submits; the reviewer rejects it, naming line 1.
 * Told apart by the model each request names.
 */
function scripted(request: RecordedRequest): ScriptedReply {
  const body = request.body as { model: string; messages: Array<{ role: string }> };
  if (body.model === 'the-reviewer')
    return {
      kind: 'text',
      text: JSON.stringify({
        verdict: 'reject',
        summary: 'neither value survives as it was',
        lines: [{ line: 1, why: 'v1 must keep the fork value' }],
      }),
      usage: { prompt_tokens: 2000, completion_tokens: 100 },
    };
  const answered = body.messages.filter((m) => m.role === 'tool').length;
  if (answered === 0)
    return {
      kind: 'tool_calls',
      calls: [
        {
          name: 'resolve_conflict',
          args: { file: 'vals.txt', conflict_num: 1, choice: 'custom', custom_text: 'v1 = both\n' },
        },
      ],
      usage: { prompt_tokens: 1000, completion_tokens: 50 },
    };
  return {
    kind: 'tool_calls',
    calls: [{ name: 'submit_resolution', args: { file: 'vals.txt' } }],
    usage: { prompt_tokens: 1000, completion_tokens: 50 },
  };
}

describe('merge with llm.reviewer_model', () => {
  it('a rejection hands the conflict over with its reasons; take candidate settles it; status shows cost per role', async () => {
    const repo = oneConflictFork();
    const server = await startLlmServer({ respond: scripted });
    writeModelConfig(repo, server.baseURL, {
      before: mergeSections,
      llm: [
        '  resolver_model: the-resolver',
        '  reviewer_model: the-reviewer',
        '  prices:',
        '    the-resolver: { input: 1, output: 2 }',
        '    the-reviewer: { input: 3, output: 10 }',
      ],
    });

    const merge = await runCli(['merge', 'upstream'], repo.dir);
    expect(merge.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(merge.code).toBe(3);
    const out = merge.stdout + merge.stderr;
    expect(out).toMatch(/model: the resolution of vals\.txt is not taken as the model's: rejected: neither value/);
    expect(out).toMatch(/model: +the-reviewer objects to line 1: v1 must keep the fork value/);
    expect(out).toMatch(/candidate 1 \(by the-resolver\): splintercat take candidate 1 vals\.txt/);
    const worktree = /Conflict 1-1, in (.+):/.exec(out)?.[1];
    expect(worktree).toBeDefined();

    // Cost per role: the resolver's two calls (2,000 + 100 tokens at 1 and 2 USD per million), the reviewer's one.
    const status = await runCli(['status'], repo.dir);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      /resolver 2 calls 2,000\+100 tokens \$0\.0022; reviewer 1 calls 2,000\+100 tokens \$0\.0070;/,
    );
    const json = await runCli(['status', '--json'], repo.dir);
    const usage = (JSON.parse(json.stdout) as { usage: Record<string, { calls: number; costUsd: number }> }).usage;
    expect(usage.reviewer).toMatchObject({ calls: 1 });
    expect(usage.reviewer?.costUsd).toBeCloseTo(0.007);

    const take = await runCli(['take', 'candidate', '1', 'vals.txt'], worktree as string);
    expect(take.code).toBe(0);
    expect(take.stdout).toMatch(/Then: splintercat continue/);
    expect(readFileSync(join(worktree as string, 'vals.txt'), 'utf8')).toMatch(/^v1 = both\n/);

    const cont = await runCli(['continue'], repo.dir);
    expect(cont.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(cont.code).toBe(0);
    // The run's cost counts every role: 0.0022 for the resolver and 0.0070 for the reviewer.
    expect(cont.stdout).toMatch(/model cost: \$0\.0092/);
    expect(repo.sh('show', 'main:vals.txt')).toMatch(/^v1 = both\n/);
    const report = await runCli(['report', '--md'], repo.dir);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/reviewer \$0\.0070/);
  });
});
