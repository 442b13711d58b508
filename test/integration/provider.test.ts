import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createRoleModels, isOffline } from '../../src/agents/model-factory.js';
import {
  createGatewayFromConfig,
  createModelRungFromConfig,
  requireModelRungFromConfig,
} from '../../src/agents/model-setup.js';
import type { Logger } from '../../src/log/logger.js';
import { ModelError } from '../../src/agents/model-error.js';
import { ModelGateway } from '../../src/agents/model-gateway.js';
import { chooseStrategy, planRecovery, type FailureContext } from '../../src/agents/planner.js';
import { resolveWithModel } from '../../src/agents/resolver/resolver-agent.js';
import { summarizeFailure } from '../../src/agents/summarizer.js';
import type { Config } from '../../src/config/schema.js';
import { SplintercatError } from '../../src/errors/index.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { conflictRepo } from '../fixtures/agents/conflict-repo.js';

function llm(server: LlmServer, over: Partial<Config['llm']> = {}): Config['llm'] {
  return {
    provider: 'openai-compatible',
    api_key: '',
    base_url: server.baseURL,
    resolver_model: 'test-resolver',
    reviewer_model: '',
    summarizer_model: 'test-summarizer',
    planner_model: 'test-planner',
    timeout: 5,
    max_retries: 3,
    candidates: 1,
    max_turns: 10,
    prices: {},
    ...over,
  };
}

function gatewayFor(config: Config['llm'], env: Record<string, string> = {}, budgetUsd = 0) {
  const sleeps: number[] = [];
  const gateway = new ModelGateway({
    models: createRoleModels(config, env),
    llm: config,
    budgetUsd,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 1,
    baseDelayMs: 100,
  });
  return { gateway, sleeps };
}

const failureCtx: FailureContext = {
  current_strategy: 'batch',
  conflicts_resolved: 2,
  failure_summary: { error_type: 'compile_error', location: 'a.c:1', root_cause: 'x', excerpt: 'a.c:1: error' },
  resolutions: [
    { i1: 1, i2: 1, files: ['a.c'] },
    { i1: 2, i2: 1, files: ['b.c'] },
  ],
  previous_attempts: [],
  max_retries: 5,
  attempts_so_far: 1,
  available_strategies: ['optimistic', 'batch', 'per_conflict'],
};

const mergeCtx = {
  source_ref: 'upstream/main',
  target_branch: 'main',
  num_source_commits: 10,
  num_target_commits: 2,
  estimated_conflicts: 5,
  available_strategies: ['optimistic', 'batch', 'per_conflict'] as const,
  default_batch_size: 10,
};
const merge = { ...mergeCtx, available_strategies: [...mergeCtx.available_strategies] };

function recordingLogger(lines: string[]): Logger {
  const at = (level: string) => (obj: object | string, msg?: string) =>
    void lines.push(`${level}: ${typeof obj === 'string' ? obj : (msg ?? '')}`);
  const log: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    decision: at('decision'),
    child: () => log,
  };
  return log;
}

function simpleConflict() {
  return conflictRepo({
    base: { 'v.txt': 'a\n1\nz\n' },
    ours: { 'v.txt': 'a\n2\nz\n' },
    theirs: { 'v.txt': 'a\n3\nz\n' },
  });
}

describe('model factory', () => {
  it('no model configured = offline for every role', () => {
    const models = createRoleModels(
      {
        ...llm({ baseURL: '' } as never),
        resolver_model: '',
        summarizer_model: '',
        planner_model: '',
        provider: 'openrouter',
        base_url: '',
      },
      {},
    );
    expect(isOffline(models)).toBe(true);
  });

  it('a missing key fails at start naming the variable and where to set it', () => {
    for (const [provider, variable] of [
      ['openrouter', 'OPENROUTER_API_KEY'],
      ['openai', 'OPENAI_API_KEY'],
      ['anthropic', 'ANTHROPIC_API_KEY'],
    ] as const) {
      let error: unknown;
      try {
        createRoleModels({ ...llm({} as never), provider, base_url: '', summarizer_model: '', planner_model: '' }, {});
      } catch (e) {
        error = e;
      }
      expect(SplintercatError.isInstance(error)).toBe(true);
      const e = error as SplintercatError;
      expect(e.code).toBe('model_key_missing');
      expect(e.kind).toBe('usage');
      expect(`${e.what} ${e.why} ${e.fix.join(' ')}`).toContain(variable);
      expect(e.fix.join(' ')).toContain('llm.api_key');
    }
    // The key from the environment or from llm.api_key is enough; only the configured roles get models.
    const m = createRoleModels(
      { ...llm({} as never), provider: 'anthropic', base_url: '', summarizer_model: '', planner_model: '' },
      { ANTHROPIC_API_KEY: 'k' },
    );
    expect(m.resolver?.keyVariable).toBe('ANTHROPIC_API_KEY');
    expect(m.summarizer).toBeNull();
    expect(
      createRoleModels({ ...llm({} as never), provider: 'openai', api_key: 'k', base_url: '' }, {}).planner
        ?.keyVariable,
    ).toBe('llm.api_key');
  });

  it('openai-compatible needs base_url but no key', () => {
    expect(() => createRoleModels({ ...llm({} as never), base_url: '' }, {})).toThrow(/base_url/);
  });
});

describe('provider path against a real local OpenAI-compatible server', () => {
  it('success with tool calls: the resolver runs end to end over HTTP', async () => {
    const server = await startLlmServer();
    const { repo } = simpleConflict();
    server.enqueue(
      {
        kind: 'tool_calls',
        text: 'Looking.',
        calls: [{ name: 'view_conflict', args: { file: 'v.txt', conflict_num: 1 } }],
      },
      {
        kind: 'tool_calls',
        calls: [{ name: 'resolve_conflict', args: { file: 'v.txt', conflict_num: 1, choice: 'theirs' } }],
      },
      {
        kind: 'tool_calls',
        calls: [{ name: 'submit_resolution', args: { file: 'v.txt' } }],
        usage: { prompt_tokens: 50, completion_tokens: 7 },
      },
    );
    const { gateway } = gatewayFor(llm(server));
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['v.txt'], conflictId: 'c1' },
      { gateway, git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(readFileSync(join(repo.dir, 'v.txt'), 'utf8')).toBe('a\n3\nz\n');
    expect(server.requests).toHaveLength(3);
    const body = server.requests[1]?.body as {
      model: string;
      tools: { function: { name: string } }[];
      messages: { role: string; content: unknown }[];
    };
    expect(body.model).toBe('test-resolver');
    expect(body.tools.map((t) => t.function.name)).toContain('submit_resolution');
    expect(body.messages.find((m) => m.role === 'tool')?.content).toMatch(/Conflict 1 of 1/);
    expect(gateway.usage.byConflict().c1).toMatchObject({ calls: 3, inputTokens: 70, outputTokens: 17 });
  });

  it('a stateless responder answers from the conversation once the queue is empty (queued replies first)', async () => {
    const server = await startLlmServer({
      respond: (request) => {
        const messages = (request.body?.messages ?? []) as { role: string }[];
        return messages.at(-1)?.role === 'tool'
          ? { kind: 'tool_calls', calls: [{ name: 'submit_resolution', args: { file: 'v.txt' } }] }
          : { kind: 'error', status: 400, body: { error: { message: 'the responder expected a tool result' } } };
      },
    });
    const { repo } = simpleConflict();
    server.enqueue({
      kind: 'tool_calls',
      calls: [
        {
          name: 'resolve_conflict',
          args: { file: 'v.txt', conflict_num: 1, choice: 'custom', custom_text: '2 and 3' },
        },
      ],
    });
    const { gateway } = gatewayFor(llm(server));
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['v.txt'], conflictId: 'c1' },
      { gateway, git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(readFileSync(join(repo.dir, 'v.txt'), 'utf8')).toBe('a\n2 and 3\nz\n');
    expect(server.requests).toHaveLength(2);
    expect(server.pending()).toBe(0);
  });

  it('429 with Retry-After, then success: waits as asked and answers', async () => {
    const server = await startLlmServer();
    server.enqueue(
      { kind: 'error', status: 429, headers: { 'retry-after': '7' } },
      { kind: 'text', text: JSON.stringify({ strategy: 'batch', batch_size: 3, reasoning: 'ok' }) },
    );
    const { gateway, sleeps } = gatewayFor(llm(server));
    const d = await chooseStrategy(merge, { gateway });
    expect(d).toMatchObject({ strategy: 'batch', batch_size: 3, source: 'model' });
    expect(sleeps).toEqual([7000]);
    expect(server.requests).toHaveLength(2);
  });

  it('500s until give-up: exponential backoff, then the safe default (abort), no crash', async () => {
    const server = await startLlmServer();
    server.enqueue(...Array.from({ length: 4 }, () => ({ kind: 'error' as const, status: 500 })));
    const { gateway, sleeps } = gatewayFor(llm(server, { max_retries: 3 }));
    const d = await planRecovery(failureCtx, { gateway });
    expect(d).toMatchObject({ decision: 'abort', source: 'default' });
    expect(d.reasoning).toMatch(/kept failing/);
    expect(server.requests).toHaveLength(4);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('500s until give-up in the resolver: a failure value, the file restored', async () => {
    const server = await startLlmServer();
    const { repo } = simpleConflict();
    const before = readFileSync(join(repo.dir, 'v.txt'), 'utf8');
    server.enqueue(...Array.from({ length: 3 }, () => ({ kind: 'error' as const, status: 503 })));
    const { gateway } = gatewayFor(llm(server, { max_retries: 2 }));
    const out = await resolveWithModel({ workdir: repo.dir, files: ['v.txt'] }, { gateway, git: repo.git });
    expect(out).toMatchObject({ ok: false, reason: 'model_failed' });
    expect(readFileSync(join(repo.dir, 'v.txt'), 'utf8')).toBe(before);
  });

  it('hang then timeout: a longer timeout, then a fresh conversation with the state restored', async () => {
    const server = await startLlmServer();
    const { repo } = simpleConflict();
    server.enqueue(
      {
        kind: 'tool_calls',
        calls: [{ name: 'resolve_conflict', args: { file: 'v.txt', conflict_num: 1, choice: 'ours' } }],
      },
      { kind: 'hang' },
      { kind: 'hang' },
      { kind: 'tool_calls', calls: [{ name: 'submit_resolution', args: { file: 'v.txt' } }] },
    );
    const { gateway } = gatewayFor(llm(server, { timeout: 0.5 }));
    const out = await resolveWithModel({ workdir: repo.dir, files: ['v.txt'] }, { gateway, git: repo.git });
    expect(out.ok).toBe(true);
    expect(out.recoveries).toEqual(['fresh-conversation']);
    expect(readFileSync(join(repo.dir, 'v.txt'), 'utf8')).toBe('a\n2\nz\n');
    // The fresh conversation starts from one user message that restores the state.
    const fresh = server.requests[3]?.body as { messages: { role: string; content: string }[] };
    expect(fresh.messages.filter((m) => m.role !== 'system')).toHaveLength(1);
    expect(fresh.messages.at(-1)?.content).toContain('A previous conversation about this conflict stopped');
    expect(fresh.messages.at(-1)?.content).toContain('resolve_conflict');
  });

  it('hangs that never end: the conflict is marked for the person, the file restored, each step logged', async () => {
    const server = await startLlmServer();
    const { repo } = simpleConflict();
    const before = readFileSync(join(repo.dir, 'v.txt'), 'utf8');
    server.enqueue({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    const lines: string[] = [];
    const log = recordingLogger(lines);
    const config = llm(server, { timeout: 0.15 });
    const gateway = new ModelGateway({
      models: createRoleModels(config, {}),
      llm: config,
      log,
      sleep: async () => undefined,
    });
    const out = await resolveWithModel({ workdir: repo.dir, files: ['v.txt'] }, { gateway, git: repo.git, log });
    expect(lines.filter((l) => /longer timeout|fresh conversation|gave up/.test(l))).toEqual([
      'warn: no reply from the model; retrying with a longer timeout',
      'error: no reply from the model after a retry with a longer timeout',
      'decision: resolver: no reply after a longer timeout; starting a fresh conversation with the current state',
      'warn: no reply from the model; retrying with a longer timeout',
      'error: no reply from the model after a retry with a longer timeout',
      expect.stringMatching(
        /^decision: resolver gave up: the resolver model did not answer, even in a fresh conversation/,
      ),
    ]);
    expect(out).toMatchObject({
      ok: false,
      reason: 'needs_person',
      recoveries: ['fresh-conversation', 'needs-person'],
    });
    expect(server.requests).toHaveLength(4);
    expect(readFileSync(join(repo.dir, 'v.txt'), 'utf8')).toBe(before);
  });

  it('malformed JSON, then a valid answer: retried', async () => {
    const server = await startLlmServer();
    server.enqueue(
      { kind: 'malformed' },
      {
        kind: 'text',
        text: JSON.stringify({
          error_type: 'link_error',
          location: null,
          root_cause: 'undefined reference to foo',
          excerpt: 'ld: undefined reference to foo',
        }),
      },
    );
    const { gateway, sleeps } = gatewayFor(llm(server));
    const out = await summarizeFailure(
      {
        result: {
          name: 'build',
          command: 'make',
          success: false,
          exitCode: 1,
          signal: null,
          timedOut: false,
          durationMs: 1,
          logFile: '/x.log',
          tail: [],
        },
        log: 'ld: undefined reference to foo',
      },
      { gateway, extract: () => ({ error_type: 'compile_error', location: null, root_cause: 'unknown', excerpt: '' }) },
    );
    expect(out).toMatchObject({ source: 'model', summary: { error_type: 'link_error' } });
    expect(sleeps).toHaveLength(1);
  });

  it('a truncated body, then a valid answer: retried', async () => {
    const server = await startLlmServer();
    server.enqueue(
      { kind: 'truncate' },
      { kind: 'text', text: JSON.stringify({ strategy: 'optimistic', reasoning: 'small' }) },
    );
    const { gateway } = gatewayFor(llm(server));
    expect(await chooseStrategy(merge, { gateway })).toMatchObject({ strategy: 'optimistic', source: 'model' });
    expect(server.requests).toHaveLength(2);
  });

  it('SSE streaming: a full stream is assembled; a truncated stream is an error value, not a crash', async () => {
    const server = await startLlmServer();
    server.enqueue(
      { kind: 'text', text: 'hello from the stream', usage: { prompt_tokens: 3, completion_tokens: 4 } },
      { kind: 'truncate', text: 'partial' },
    );
    const { gateway } = gatewayFor(llm(server));
    const model = gateway.model('summarizer');
    if (!model) throw new Error('no model');
    const ok = streamText({ model: model.model, prompt: 'hi', maxRetries: 0 });
    expect(await ok.text).toBe('hello from the stream');
    expect(server.requests[0]?.body?.stream).toBe(true);
    expect(gateway.usage.total()).toMatchObject({ inputTokens: 3, outputTokens: 4 });
    const errors: unknown[] = [];
    const cut = streamText({
      model: model.model,
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    let caught: unknown;
    try {
      for await (const part of cut.fullStream) if (part.type === 'error') errors.push(part.error);
    } catch (e) {
      caught = e;
    }
    // The cut connection surfaces as an error the caller handles (never an unhandled crash).
    const first = caught ?? errors[0];
    expect(first).toBeInstanceOf(Error);
    expect(String((first as Error).message)).toMatch(/Failed to process successful response|terminated|kept failing/);
  });

  it('401 stops at once naming the key variable (OpenRouter provider)', async () => {
    const server = await startLlmServer();
    server.enqueue({
      kind: 'error',
      status: 401,
      body: { error: { message: 'No auth credentials found', code: 401 } },
    });
    const { gateway } = gatewayFor(llm(server, { provider: 'openrouter' }), { OPENROUTER_API_KEY: 'sk-bad' });
    const { repo } = simpleConflict();
    let error: unknown;
    try {
      await resolveWithModel({ workdir: repo.dir, files: ['v.txt'] }, { gateway, git: repo.git });
    } catch (e) {
      error = e;
    }
    expect(ModelError.isModelError(error)).toBe(true);
    const e = error as ModelError;
    expect(e.reason).toBe('auth');
    expect(e.kind).toBe('usage');
    expect(`${e.why} ${e.fix.join(' ')}`).toContain('OPENROUTER_API_KEY');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-bad');
    // The planner and summarizer also stop (the run cannot go on without a key).
    server.enqueue({ kind: 'error', status: 403 });
    await expect(planRecovery(failureCtx, { gateway })).rejects.toMatchObject({ code: 'model_auth' });
  });

  it('the openai provider (chat completions) goes through the same path with OPENAI_API_KEY', async () => {
    const server = await startLlmServer();
    server.enqueue({ kind: 'text', text: JSON.stringify({ decision: 'bisect', reasoning: 'several suspects' }) });
    const { gateway } = gatewayFor(llm(server, { provider: 'openai' }), { OPENAI_API_KEY: 'sk-openai' });
    expect(await planRecovery(failureCtx, { gateway })).toMatchObject({ decision: 'bisect', source: 'model' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-openai');
    expect((server.requests[0]?.body as { model: string }).model).toBe('test-planner');
  });

  it('context too long: the prompt is truncated once and retried', async () => {
    const server = await startLlmServer();
    server.enqueue(
      {
        kind: 'error',
        status: 400,
        body: {
          error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' },
        },
      },
      {
        kind: 'text',
        text: JSON.stringify({ error_type: 'compile_error', location: 'a.c:1', root_cause: 'x', excerpt: 'y' }),
      },
    );
    const { gateway } = gatewayFor(llm(server));
    const log = Array.from({ length: 3000 }, (_, i) => `line ${i} error: something`).join('\n');
    const out = await summarizeFailure(
      {
        result: {
          name: 'build',
          command: 'make',
          success: false,
          exitCode: 1,
          signal: null,
          timedOut: false,
          durationMs: 1,
          logFile: '/x.log',
          tail: [],
        },
        log,
      },
      { gateway, extract: () => ({ error_type: 'compile_error', location: null, root_cause: 'unknown', excerpt: '' }) },
    );
    expect(out.source).toBe('model');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.raw.length).toBeLessThan((server.requests[0]?.raw.length ?? 0) / 2);
    expect(server.requests[1]?.raw).toContain('characters cut to fit');
  });

  it("OpenRouter's reported cost is recorded, and the budget stops the next call cleanly", async () => {
    const server = await startLlmServer();
    const { repo } = simpleConflict();
    server.enqueue({
      kind: 'tool_calls',
      calls: [{ name: 'view_conflict', args: { file: 'v.txt', conflict_num: 1 } }],
      usage: { prompt_tokens: 1000, completion_tokens: 100, cost: 0.02 },
    });
    const { gateway } = gatewayFor(llm(server, { provider: 'openrouter' }), { OPENROUTER_API_KEY: 'k' }, 0.03);
    const out = await resolveWithModel({ workdir: repo.dir, files: ['v.txt'] }, { gateway, git: repo.git });
    expect(out).toMatchObject({ ok: false, reason: 'budget' });
    if (!out.ok) expect(out.message).toMatch(/budget would be exceeded/);
    expect(server.requests).toHaveLength(1);
    expect((server.requests[0]?.body as { usage?: unknown }).usage).toEqual({ include: true });
    expect(gateway.usage.records[0]).toMatchObject({ costUsd: 0.02, costSource: 'reported', role: 'resolver' });
  });
});

describe('config-level setup', () => {
  it('offline config: no gateway, no rung; --with-model refused with a clear error', async () => {
    const config = {
      llm: { ...llm({} as never), resolver_model: '', summarizer_model: '', planner_model: '' },
      budget: { usd: 0 },
    };
    const repo = conflictRepo({ base: { a: '1\n' }, ours: { a: '2\n' }, theirs: { a: '3\n' } }).repo;
    expect(createGatewayFromConfig(config, {})).toBeNull();
    expect(createModelRungFromConfig(config, {}, { git: repo.git })).toBeNull();
    await expect(requireModelRungFromConfig(config, {}, { git: repo.git })).rejects.toMatchObject({
      code: 'model_not_configured',
      kind: 'usage',
    });
  });

  it('a configured resolver gives a rung that resolves through the local server', async () => {
    const server = await startLlmServer();
    const { repo } = simpleConflict();
    server.enqueue(
      {
        kind: 'tool_calls',
        calls: [{ name: 'resolve_conflict', args: { file: 'v.txt', conflict_num: 1, choice: 'theirs' } }],
      },
      { kind: 'tool_calls', calls: [{ name: 'submit_resolution', args: { file: 'v.txt' } }] },
    );
    const rung = createModelRungFromConfig(
      { llm: llm(server), budget: { usd: 0 } },
      {},
      { git: repo.git, workdir: repo.dir },
    );
    expect(rung).not.toBeNull();
    const { resolveWorkingTree } = await import('../../src/resolve/working-tree.js');
    const results = await resolveWorkingTree(repo.git, { fallback: rung?.fallback });
    expect(results).toMatchObject([{ path: 'v.txt', status: 'resolved' }]);
    expect(readFileSync(join(repo.dir, 'v.txt'), 'utf8')).toBe('a\n3\nz\n');
    expect(rung?.usage()).toMatchObject({ hunksResolved: 1, inputTokens: 20, outputTokens: 10 });
  });
});
