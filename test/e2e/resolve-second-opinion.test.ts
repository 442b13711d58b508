import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLlmServer, type ScriptedReply } from '../helpers/llm-server.js';
import type { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { conflictedMerge, writeModelConfig } from '../fixtures/resolve/model-repo.js';

/** One resolver conversation that writes `text` in place of the hunk and submits. */
function resolution(text: string): ScriptedReply[] {
  return [
    {
      kind: 'tool_calls',
      calls: [
        { name: 'resolve_conflict', args: { file: 'b.txt', conflict_num: 1, choice: 'custom', custom_text: text } },
      ],
    },
    { kind: 'tool_calls', calls: [{ name: 'submit_resolution', args: { file: 'b.txt' } }] },
  ];
}

const unmerged = (repo: TestRepo): string => repo.sh('diff', '--name-only', '--diff-filter=U');

describe('llm.candidates: independent resolutions must agree', () => {
  it('two candidates that differ only in whitespace agree: the resolution is taken, exit 0', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, { llm: ['  resolver_model: scripted-resolver', '  candidates: 2'] });
    server.enqueue(...resolution('beta main and feature\n'), ...resolution('beta  main   and feature\n'));
    const run = await runCli(['resolve'], repo.dir);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(4);
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toBe('alpha\nbeta main and feature\ngamma\n');
    expect(unmerged(repo)).toBe('');
  });

  it('two that disagree hand both over; take candidate 2 writes and stages the second', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, { llm: ['  resolver_model: scripted-resolver', '  candidates: 2'] });
    // A candidate is hostile text: a control sequence and a line posing as a command are shown escaped, behind the prefix.
    server.enqueue(...resolution('beta main\u001b[2J\nThen: rm -rf /\n'), ...resolution('beta feature, then main\n'));
    const before = readFileSync(join(repo.dir, 'b.txt'), 'utf8');
    const run = await runCli(['resolve'], repo.dir);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(
      /model: the resolution of b\.txt is not taken as the model's: the 2 candidates disagree/,
    );
    expect(run.stdout).toMatch(/candidate 1 \(by scripted-resolver\): splintercat take candidate 1 b\.txt/);
    expect(run.stdout).toMatch(/candidate 2 \(by scripted-resolver\): splintercat take candidate 2 b\.txt/);
    expect(run.stdout).toContain('| beta feature, then main');
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).toMatch(/^model: +\| Then: rm -rf \/$/m);
    expect(run.stdout).not.toMatch(/^Then: rm/m);
    // Nothing was taken as the model's: the file is as git wrote it.
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toBe(before);
    expect(unmerged(repo)).toBe('b.txt');

    const take = await runCli(['take', 'candidate', '2', 'b.txt'], repo.dir);
    expect(take.stderr).toBe('');
    expect(take.code).toBe(0);
    expect(take.stdout).toMatch(/b\.txt: wrote candidate 2 \(by scripted-resolver\); staged/);
    expect(take.stdout).toMatch(/No conflict left\./);
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toBe('alpha\nbeta feature, then main\ngamma\n');
    expect(unmerged(repo)).toBe('');
  });

  it('take candidate names what exists when asked for a candidate that does not', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, { llm: ['  resolver_model: scripted-resolver', '  candidates: 2'] });
    server.enqueue(...resolution('one\n'), ...resolution('two\n'));
    expect((await runCli(['resolve'], repo.dir)).code).toBe(3);
    const take = await runCli(['take', 'candidate', '3', 'b.txt'], repo.dir);
    expect(take.code).not.toBe(0);
    expect(take.stderr).toMatch(/b\.txt has no candidate 3 \(its candidates: 1, 2\)/);
    expect(take.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(unmerged(repo)).toBe('b.txt');
  });
});

describe('llm.reviewer_model: a second opinion on the resolution', () => {
  it('an acceptance takes the resolution; the reviewer saw the three sides, the resolution and the audit', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, {
      llm: ['  resolver_model: scripted-resolver', '  reviewer_model: scripted-reviewer'],
    });
    server.enqueue(...resolution('beta main\n'), {
      kind: 'text',
      text: JSON.stringify({ verdict: 'accept', summary: 'keeps the fork', lines: [] }),
    });
    const run = await runCli(['resolve'], repo.dir);
    expect(run.code).toBe(0);
    expect(unmerged(repo)).toBe('');
    expect(run.stderr).toMatch(/^model: 1 hunk\(s\) resolved, 20\+10 tokens/m);
    expect(run.stderr).toMatch(/^reviewer: 1 call\(s\), 10\+5 tokens/m);
    const review = server.requests[2]?.body as { model: string; messages: Array<{ content: string }> };
    expect(review.model).toBe('scripted-reviewer');
    const prompt = JSON.stringify(review.messages);
    expect(prompt).toContain('beta feature');
    expect(prompt).toContain('hunk 1 upstream');
    expect(prompt).toContain('upstream line 2 rewritten as \\"beta main\\", losing feature: beta feature');
  });

  it('a rejection hands over with its reasons and the candidate to take', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, {
      llm: ['  resolver_model: scripted-resolver', '  reviewer_model: scripted-reviewer'],
    });
    server.enqueue(...resolution('beta main\n'), {
      kind: 'text',
      text: JSON.stringify({
        verdict: 'reject',
        summary: "upstream's change is lost",
        lines: [{ line: 2, why: 'beta feature is gone' }],
      }),
    });
    const run = await runCli(['resolve'], repo.dir);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/not taken as the model's: rejected: upstream's change is lost/);
    expect(run.stdout).toMatch(/scripted-reviewer objects to line 2: beta feature is gone/);
    expect(run.stdout).toMatch(/candidate 1 \(by scripted-resolver\): splintercat take candidate 1 b\.txt/);
    expect(unmerged(repo)).toBe('b.txt');
  });

  it('an answer that is no verdict is never an acceptance', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, {
      llm: ['  resolver_model: scripted-resolver', '  reviewer_model: scripted-reviewer'],
    });
    server.enqueue(...resolution('beta main\n'), { kind: 'text', text: 'Looks good to me!' });
    const run = await runCli(['resolve'], repo.dir);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/not taken as the model's: the reviewer answered with no verdict/);
    expect(unmerged(repo)).toBe('b.txt');
  });

  it('a reviewer that never answers leaves the file to the person', async () => {
    const repo = conflictedMerge();
    const server = await startLlmServer();
    writeModelConfig(repo, server.baseURL, {
      llm: ['  resolver_model: scripted-resolver', '  reviewer_model: scripted-reviewer', '  timeout: 1.5'],
    });
    server.enqueue(...resolution('beta main\n'), { kind: 'hang' }, { kind: 'hang' });
    const run = await runCli(['resolve'], repo.dir);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/not taken as the model's: the reviewer did not answer in time/);
    // The reviewer was asked, and again with a longer timeout, and answered neither.
    expect(server.requests).toHaveLength(4);
    expect(unmerged(repo)).toBe('b.txt');
  });
});
