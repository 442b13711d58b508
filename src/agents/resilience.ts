import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { APICallError } from 'ai';
import { nullLogger, type Logger } from '../log/logger.js';
import { ModelError } from './model-error.js';
import { truncatePrompt } from './prompt-truncate.js';
import type { BudgetTracker } from './usage.js';
import { callCost, readUsage, reportedCost, type ModelPrice, type ModelRole, type UsageTracker } from './usage.js';

/** What a failed call was, for the recovery decision. */
export type FailureClass = 'auth' | 'retryable' | 'timeout' | 'context_too_long' | 'bad_request' | 'aborted';

export interface ResilienceOptions {
  role: ModelRole;
  modelId: string;
  /** The variable holding the key (named in the 401/403 message); null when no key is used. */
  keyVariable: string | null;
  /** Where the provider is reached and how its local server starts: named when nothing answers there. */
  server?: { provider: string; baseURL: string | undefined; startCommand: string | undefined };
  /** Seconds one call may take; the retry after a timeout gets twice as long. */
  timeoutMs: number;
  /** Retries on 429/5xx/network/malformed answers. */
  maxRetries: number;
  usage: UsageTracker;
  budget?: BudgetTracker;
  price?: ModelPrice;
  /** The conflict this model works on (usage is also accounted per conflict). */
  conflict?: string;
  log?: Logger;
  /** Injectable so tests do not wait for real backoff. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The longest `Retry-After` honoured, so 5 retries stay within 5 minutes. */
  maxRetryAfterMs?: number;
}

/** Sleep that an abort signal cuts short. */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const contextTooLong =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|context_too_long|reduce the length/i;

/** Sort a failed call into the recovery tree's branches. */
export function classifyFailure(error: unknown): FailureClass {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === 401 || status === 403) return 'auth';
    const text = `${error.message} ${error.responseBody ?? ''}`;
    if ((status === 400 || status === 413) && contextTooLong.test(text)) return 'context_too_long';
    if (status === undefined || status === 408 || status === 409 || status === 429 || status >= 500) return 'retryable';
    // A 200 whose body could not be read (malformed JSON) is a transient fault of the server.
    if (status >= 200 && status < 300) return 'retryable';
    return 'bad_request';
  }
  // Network faults, truncated bodies, JSON parse errors: worth another try.
  return 'retryable';
}

/** Milliseconds the server asked us to wait (`retry-after-ms`, `retry-after` seconds or HTTP date). */
export function retryAfterMs(error: unknown, now = Date.now()): number | undefined {
  if (!APICallError.isInstance(error) || !error.responseHeaders) return undefined;
  const h = Object.fromEntries(Object.entries(error.responseHeaders).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(h['retry-after-ms']);
  if (h['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = h['retry-after'];
  if (ra === undefined) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with equal jitter: half fixed, half random. */
export function backoffMs(attempt: number, base: number, max: number, random: () => number): number {
  const exp = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + (exp / 2) * random());
}

function authError(o: ResilienceOptions, cause: unknown): ModelError {
  const status = APICallError.isInstance(cause) ? cause.statusCode : undefined;
  const variable = o.keyVariable ?? 'llm.api_key';
  return new ModelError('auth', {
    what: `The ${o.role} model (${o.modelId}) rejected the API key (HTTP ${status ?? '401/403'})`,
    why: `${variable} is invalid, expired or missing the rights for this model.`,
    fix: [
      variable === 'llm.api_key'
        ? 'Set a valid key in splintercat.yaml under llm.api_key'
        : `Set a valid key in ${variable}, or in splintercat.yaml under llm.api_key`,
      'Check the model id and the account at your provider',
    ],
    cause,
  });
}

function errorText(error: unknown): string {
  if (APICallError.isInstance(error)) return `HTTP ${error.statusCode ?? 'network'}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Whether a failed call found nothing listening at the provider's address (ECONNREFUSED, however deep in its causes). */
export function connectionRefused(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length > 0) {
    const e = pending.pop();
    if (!(e instanceof Error) || seen.has(e)) continue;
    seen.add(e);
    if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return true;
    pending.push(e.cause, ...(e instanceof AggregateError ? e.errors : []));
  }
  return false;
}

/**
 * Nothing answers at the provider's address: the request's URL, and what to start or correct. The
 * line a hand-off shows (`what`) names both, since it is all the person reads of it there.
 */
function refusedError(o: ResilienceOptions, error: unknown): ModelError {
  const url = (APICallError.isInstance(error) ? error.url : undefined) ?? o.server?.baseURL ?? 'its address';
  const start = o.server?.startCommand
    ? `start the ${o.server.provider} server: \`${o.server.startCommand}\``
    : `start the server that llm.base_url names (${o.server?.baseURL ?? "the provider's own address"}), or correct llm.base_url`;
  return new ModelError('unavailable', {
    what: `The ${o.role} model (${o.modelId}) could not connect to ${url} (connection refused): ${start}`,
    why: 'Nothing listens at that address: the server is not running there, or llm.base_url names another address.',
    fix: [
      o.server?.startCommand
        ? `Run \`${o.server.startCommand}\` (or set llm.base_url to where it listens)`
        : `Start the server, or set llm.base_url to where it listens`,
      'Then run `splintercat continue`',
    ],
    cause: error,
  });
}

/** What every call of one wrapped model shares. */
interface Resilient {
  o: ResilienceOptions;
  log: Logger;
  sleep: NonNullable<ResilienceOptions['sleep']>;
  random: () => number;
  base: number;
  max: number;
  maxRetryAfter: number;
}

/** Hold the budget for this call; throws ModelError('budget') when it would pass the limit. */
function reserveBudget({ o, log }: Resilient, options: LanguageModelV3CallOptions): () => void {
  if (!o.budget) return () => undefined;
  const promptTokens = JSON.stringify(options.prompt).length / 4;
  const estimate = o.price ? (promptTokens * o.price.input) / 1_000_000 : 0;
  const verdict = o.budget.reserve(estimate);
  if (!verdict.ok) {
    log.decision(
      { spentUsd: verdict.spentUsd, limitUsd: verdict.limitUsd, estimateUsd: verdict.estimateUsd },
      'budget reached: model call refused',
    );
    throw new ModelError('budget', {
      what: `The model budget would be exceeded: spent $${verdict.spentUsd.toFixed(4)} of $${verdict.limitUsd}, next call estimated at $${verdict.estimateUsd.toFixed(4)}`,
      why: 'budget.usd stops the run before spending passes it.',
      fix: ['Raise budget.usd in splintercat.yaml (0 = no limit), then run `splintercat continue`'],
    });
  }
  return verdict.release;
}

function recordUsage({ o }: Resilient, usage: unknown, providerMetadata: unknown): void {
  const tokens = readUsage(usage);
  const cost = callCost(tokens, o.price, reportedCost(providerMetadata));
  o.usage.record({
    role: o.role,
    modelId: o.modelId,
    ...(o.conflict ? { conflict: o.conflict } : {}),
    ...tokens,
    ...cost,
  });
}

/** Where the retries of one call stand. */
interface AttemptState {
  timeoutMs: number;
  timeouts: number;
  retries: number;
  truncated: boolean;
  prompt: LanguageModelV3CallOptions['prompt'];
}

/** After a timeout: retry once with twice the time, then give up. */
function afterTimeout({ o, log }: Resilient, state: AttemptState, error: unknown): void {
  state.timeouts += 1;
  const { timeoutMs } = state;
  if (state.timeouts > 1) {
    log.error({ timeoutMs, step: 'give-up' }, 'no reply from the model after a retry with a longer timeout');
    throw new ModelError('timeout', {
      what: `The ${o.role} model (${o.modelId}) did not answer within ${timeoutMs / 1000} s, twice`,
      why: 'The provider is overloaded or the model is slow for this prompt.',
      fix: ['Raise llm.timeout in splintercat.yaml', `Or choose a faster llm.${o.role}_model`],
      cause: error,
    });
  }
  log.warn(
    { timeoutMs, nextTimeoutMs: timeoutMs * 2, step: 'longer-timeout' },
    'no reply from the model; retrying with a longer timeout',
  );
  state.timeoutMs *= 2;
}

/** After a failure that is not a timeout: throw what cannot be retried, else truncate or back off. */
async function afterFailure(r: Resilient, state: AttemptState, error: unknown, signal?: AbortSignal): Promise<void> {
  const { o, log } = r;
  const kind = classifyFailure(error);
  if (kind === 'auth') {
    log.error({ error: errorText(error) }, 'model rejected the API key; stopping');
    throw authError(o, error);
  }
  if (kind === 'context_too_long') {
    if (state.truncated) {
      throw new ModelError('context_too_long', {
        what: `The ${o.role} prompt is too long for ${o.modelId}, even after truncation`,
        why: 'The conflicted file or the check log is larger than the model context.',
        fix: [`Choose a model with a larger context for llm.${o.role}_model`, 'Or resolve this conflict by hand'],
        cause: error,
      });
    }
    state.truncated = true;
    state.prompt = truncatePrompt(state.prompt);
    log.warn({ step: 'truncate' }, 'context too long: prompt truncated, retrying once');
    return;
  }
  if (kind === 'bad_request') {
    throw new ModelError('bad_request', {
      what: `The ${o.role} model (${o.modelId}) refused the request: ${errorText(error)}`,
      why: 'The model id may be wrong, or the provider does not support tools/structured output for it.',
      fix: [`Check llm.${o.role}_model and llm.provider in splintercat.yaml`],
      cause: error,
    });
  }
  await backOff(r, state, error, signal);
}

/** Wait before the next try (Retry-After when the provider gave one), or give up after `maxRetries`. */
async function backOff(r: Resilient, state: AttemptState, error: unknown, signal?: AbortSignal): Promise<void> {
  const { o, log } = r;
  state.retries += 1;
  if (state.retries > o.maxRetries) {
    log.error({ retries: o.maxRetries, error: errorText(error) }, 'model call failed after all retries');
    if (connectionRefused(error)) throw refusedError(o, error);
    throw new ModelError('unavailable', {
      what: `The ${o.role} model (${o.modelId}) kept failing: ${errorText(error)}`,
      why: `${o.maxRetries} retries with backoff did not get an answer (rate limit, server errors or a broken connection).`,
      fix: ['Run `splintercat continue` later', 'Raise llm.max_retries, or choose another model/provider'],
      cause: error,
    });
  }
  const asked = retryAfterMs(error);
  const delayMs =
    asked !== undefined ? Math.min(asked, r.maxRetryAfter) : backoffMs(state.retries, r.base, r.max, r.random);
  log.warn(
    { retry: state.retries, of: o.maxRetries, delayMs, retryAfter: asked !== undefined, error: errorText(error) },
    'model call failed; backing off',
  );
  await r.sleep(delayMs, signal);
}

/** One call with its budget hold, its timeout and its recoveries, until it answers or one gives up. */
async function attempt<T>(
  r: Resilient,
  options: LanguageModelV3CallOptions,
  call: (opts: LanguageModelV3CallOptions) => PromiseLike<T>,
): Promise<T> {
  const state: AttemptState = {
    timeoutMs: r.o.timeoutMs,
    timeouts: 0,
    retries: 0,
    truncated: false,
    prompt: options.prompt,
  };
  for (;;) {
    const prompt = state.prompt;
    const release = reserveBudget(r, { ...options, prompt });
    const timer = new AbortController();
    const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, timer.signal]) : timer.signal;
    let handle: NodeJS.Timeout | undefined;
    // A model that ignores the signal must not hang us: the race ends the wait either way.
    const timedOut = new Promise<never>((_, reject) => {
      handle = setTimeout(() => {
        timer.abort(new Error('model call timed out'));
        reject(new Error('model call timed out'));
      }, state.timeoutMs);
    });
    try {
      return await Promise.race([call({ ...options, prompt, abortSignal: signal }), timedOut]);
    } catch (error) {
      if (options.abortSignal?.aborted) throw error;
      if (ModelError.isModelError(error)) throw error;
      if (timer.signal.aborted) afterTimeout(r, state, error);
      else await afterFailure(r, state, error, options.abortSignal);
    } finally {
      clearTimeout(handle);
      release();
    }
  }
}

/**
 * Wrap a model so every call (each step of a tool loop) recovers from the
 * errors a provider can give:
 * 429/5xx/network/malformed → exponential backoff with jitter, honouring
 * Retry-After, up to `maxRetries`; no reply within the timeout → one retry with
 * twice the timeout, then `ModelError('timeout')` (the resolver then starts a
 * fresh conversation, then hands the conflict to the person); 401/403 →
 * `ModelError('auth')` at once; context too long → truncate once and retry.
 * It also checks the budget before each call and records usage and cost after it.
 */
export function withResilience(model: LanguageModelV3, o: ResilienceOptions): LanguageModelV3 {
  const r: Resilient = {
    o,
    log: (o.log ?? nullLogger).child({
      role: o.role,
      model: o.modelId,
      ...(o.conflict ? { conflict: o.conflict } : {}),
    }),
    sleep: o.sleep ?? realSleep,
    random: o.random ?? Math.random,
    base: o.baseDelayMs ?? 1000,
    max: o.maxDelayMs ?? 60_000,
    maxRetryAfter: o.maxRetryAfterMs ?? 300_000,
  };
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
      // Usage is recorded before the budget hold is released, so parallel calls always see it.
      return attempt(r, options, async (opts) => {
        const result = await model.doGenerate(opts);
        recordUsage(r, result.usage, result.providerMetadata);
        return result;
      });
    },
    async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
      const result = await attempt(r, options, (opts) => model.doStream(opts));
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            if (part.type === 'finish') recordUsage(r, part.usage, part.providerMetadata);
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream };
    },
  };
}
