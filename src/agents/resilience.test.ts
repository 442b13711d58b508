import { APICallError, generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error.js';
import { backoffMs, classifyFailure, connectionRefused, retryAfterMs, withResilience } from './resilience.js';
import { UsageTracker } from './usage.js';

const apiError = (statusCode: number | undefined, extra: { headers?: Record<string, string>; body?: string } = {}) =>
  new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://x',
    requestBodyValues: {},
    statusCode,
    responseHeaders: extra.headers,
    responseBody: extra.body,
  });

const ok = {
  content: [{ type: 'text' as const, text: 'fine' }],
  finishReason: { unified: 'stop' as const, raw: 'stop' },
  usage: {
    inputTokens: { total: 3, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  },
  warnings: [],
};

function flaky(errors: unknown[]): MockLanguageModelV3 {
  let i = 0;
  return new MockLanguageModelV3({
    modelId: 'flaky',
    doGenerate: async () => {
      const e = errors[i++];
      if (e !== undefined) throw e;
      return ok;
    },
  });
}

describe('resilience', () => {
  it('classifies failures into the recovery branches', () => {
    expect(classifyFailure(apiError(401))).toBe('auth');
    expect(classifyFailure(apiError(403))).toBe('auth');
    expect(classifyFailure(apiError(429))).toBe('retryable');
    expect(classifyFailure(apiError(502))).toBe('retryable');
    expect(classifyFailure(apiError(undefined))).toBe('retryable');
    expect(classifyFailure(apiError(400, { body: '{"error":{"code":"context_length_exceeded"}}' }))).toBe(
      'context_too_long',
    );
    expect(classifyFailure(apiError(400, { body: 'bad tool schema' }))).toBe('bad_request');
    expect(classifyFailure(new TypeError('fetch failed'))).toBe('retryable');
  });

  it('tells a refused connection however deep in the causes (undici wraps it in an AggregateError)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' });
    const fetchFailed = new TypeError('fetch failed', { cause: new AggregateError([refused], 'connect failed') });
    expect(
      connectionRefused(
        new APICallError({ message: 'Cannot connect to API', url: 'u', requestBodyValues: {}, cause: fetchFailed }),
      ),
    ).toBe(true);
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(connectionRefused(new TypeError('fetch failed', { cause: reset }))).toBe(false);
    expect(connectionRefused('ECONNREFUSED')).toBe(false);
  });

  it('reads Retry-After in seconds, milliseconds and as a date', () => {
    expect(retryAfterMs(apiError(429, { headers: { 'Retry-After': '3' } }))).toBe(3000);
    expect(retryAfterMs(apiError(429, { headers: { 'retry-after-ms': '250' } }))).toBe(250);
    expect(retryAfterMs(apiError(429, { headers: { 'retry-after': new Date(10_000).toUTCString() } }), 4000)).toBe(
      6000,
    );
    expect(retryAfterMs(apiError(429))).toBeUndefined();
  });

  it('backs off exponentially with jitter, capped', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, 1000, 5000, () => 1))).toEqual([1000, 2000, 4000, 5000]);
    expect(backoffMs(3, 1000, 60_000, () => 0)).toBe(2000);
  });

  it('retries 5xx with backoff and records usage of the answer (undefined fields as 0)', async () => {
    const sleeps: number[] = [];
    const usage = new UsageTracker();
    const model = withResilience(flaky([apiError(500), apiError(429, { headers: { 'retry-after': '2' } })]), {
      role: 'planner',
      modelId: 'flaky',
      keyVariable: null,
      timeoutMs: 1000,
      maxRetries: 3,
      usage,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
      baseDelayMs: 100,
    });
    const r = await generateText({ model, prompt: 'x', maxRetries: 0 });
    expect(r.text).toBe('fine');
    expect(sleeps).toEqual([75, 2000]);
    expect(usage.total()).toMatchObject({ calls: 1, inputTokens: 3, outputTokens: 0 });
  });

  it('a model that ignores the abort signal still times out: longer timeout once, then ModelError(timeout)', async () => {
    let calls = 0;
    const never = new MockLanguageModelV3({
      doGenerate: () => {
        calls++;
        return new Promise(() => undefined);
      },
    });
    const model = withResilience(never, {
      role: 'resolver',
      modelId: 'slow',
      keyVariable: null,
      timeoutMs: 20,
      maxRetries: 3,
      usage: new UsageTracker(),
      sleep: async () => undefined,
    });
    const error = await generateText({ model, prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(ModelError.isModelError(error) && error.reason).toBe('timeout');
    expect(calls).toBe(2);
  });

  it('401 is not retried and names the variable', async () => {
    const model = withResilience(flaky([apiError(401)]), {
      role: 'resolver',
      modelId: 'm',
      keyVariable: 'OPENAI_API_KEY',
      timeoutMs: 1000,
      maxRetries: 3,
      usage: new UsageTracker(),
      sleep: async () => undefined,
    });
    const error = await generateText({ model, prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(ModelError.isModelError(error) && error.reason).toBe('auth');
    expect((error as ModelError).fix.join(' ')).toContain('OPENAI_API_KEY');
  });
});
