import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { onTestFinished } from 'vitest';

/**
 * A real local HTTP server speaking OpenAI `POST /v1/chat/completions` (JSON and
 * SSE ending in `data: [DONE]`), answering from a queue of scripted replies and
 * recording every request. The real providers (`createOpenAICompatible`,
 * `createOpenRouter`) are pointed at it, so the whole provider path runs offline.
 *
 * When the queue is empty, an optional `respond(request)` computes the reply from
 * the request itself: a stateless model for runs whose number and order of calls
 * is not known in advance (a CLI killed and resumed at random moments).
 */

interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** OpenRouter's reported cost in USD (sent as `usage.cost`). */
  cost?: number;
}

export interface ScriptedToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (to script invalid arguments). */
  args: Record<string, unknown> | string;
  id?: string;
}

export type ScriptedReply =
  | { kind: 'text'; text: string; usage?: ScriptedUsage }
  | { kind: 'tool_calls'; calls: ScriptedToolCall[]; text?: string; usage?: ScriptedUsage }
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Accept the request and never answer (until the client gives up or the server closes). */
  | { kind: 'hang' }
  /** A 200 whose body is not JSON. */
  | { kind: 'malformed' }
  /** Start a valid answer and cut the connection half-way (JSON: short body; SSE: no `[DONE]`). */
  | { kind: 'truncate'; text?: string };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | null;
  /** The raw body (for requests that were not JSON). */
  raw: string;
}

/**
 * Computes a reply from the request (its `body.messages` is the whole conversation so far).
 * Called only when the queue is empty; it runs after the request was recorded, so
 * `server.requests` already ends with it.
 */
type LlmResponder = (request: RecordedRequest) => ScriptedReply;

export interface LlmServerOptions {
  /** Close the server when the current test finishes (default true). */
  autoClose?: boolean;
  /** Answers the requests the queue has no reply for; without it they get a 500. */
  respond?: LlmResponder;
}

export interface LlmServer {
  /** `http://127.0.0.1:PORT/v1` — the `baseURL` for the providers. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Queue replies; each request takes the next one (before `respond` is asked). */
  enqueue(...replies: ScriptedReply[]): void;
  /** Replies not used yet. */
  pending(): number;
  /** Resolves when at least `n` requests have arrived (no sleeps). */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

const defaultUsage: ScriptedUsage = { prompt_tokens: 10, completion_tokens: 5 };

/** Start a server on 127.0.0.1:0; it is closed when the current test finishes (unless `autoClose: false`). */
export async function startLlmServer(options: LlmServerOptions = {}): Promise<LlmServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters: { n: number; resolve: () => void }[] = [];
  let counter = 0;

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      body = null;
    }
    const request: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: { ...req.headers },
      body,
      raw,
    };
    requests.push(request);
    for (const w of waiters.filter((x) => requests.length >= x.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    if (req.method !== 'POST' || !(req.url ?? '').endsWith('/chat/completions')) {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      return;
    }
    let reply: ScriptedReply | undefined;
    try {
      reply = queue.shift() ?? options.respond?.(request);
    } catch (error) {
      // A throwing responder must not become an unhandled rejection in the test process.
      sendJson(res, 500, {
        error: { message: `llm-server: respond threw: ${error instanceof Error ? error.message : String(error)}` },
      });
      return;
    }
    if (!reply) {
      sendJson(res, 500, { error: { message: 'llm-server: no scripted reply left' } });
      return;
    }
    const stream = body?.stream === true;
    const id = `chatcmpl-${++counter}`;
    const model = typeof body?.model === 'string' ? body.model : 'test-model';
    switch (reply.kind) {
      case 'error':
        sendJson(
          res,
          reply.status,
          reply.body ?? { error: { message: `scripted ${reply.status}`, code: reply.status } },
          reply.headers,
        );
        return;
      case 'hang':
        // Keep the socket open; the client's timeout or close() ends it.
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id": "x", "choices": [ this is not json');
        return;
      case 'truncate':
        // Cut the connection mid-body, once what was written has left.
        if (stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(sse(chunk(id, model, { role: 'assistant', content: reply.text ?? 'partial' }, null)));
          res.write('data: {"id":"x","choices":[{"delta":{"content":"cut he', () => res.socket?.destroy());
        } else {
          const full = JSON.stringify(completion(id, model, { kind: 'text', text: reply.text ?? 'partial answer' }));
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(full.length) });
          res.write(full.slice(0, Math.floor(full.length / 2)), () => res.socket?.destroy());
        }
        return;
      case 'text':
      case 'tool_calls':
        if (stream) sendStream(res, id, model, reply);
        else sendJson(res, 200, completion(id, model, reply));
        return;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const api: LlmServer = {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    pending: () => queue.length,
    waitForRequests: (n) =>
      requests.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  if (options.autoClose !== false) onTestFinished(() => api.close());
  return api;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

function usageOf(u: ScriptedUsage | undefined): Record<string, number> {
  const x = u ?? defaultUsage;
  return {
    prompt_tokens: x.prompt_tokens,
    completion_tokens: x.completion_tokens,
    total_tokens: x.prompt_tokens + x.completion_tokens,
    ...(x.cost !== undefined ? { cost: x.cost } : {}),
  };
}

function toolCallsOf(calls: ScriptedToolCall[]): Record<string, unknown>[] {
  return calls.map((c, i) => ({
    id: c.id ?? `call_${i + 1}`,
    type: 'function',
    function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) },
  }));
}

function completion(
  id: string,
  model: string,
  reply: Extract<ScriptedReply, { kind: 'text' | 'tool_calls' }>,
): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? null };
  if (reply.kind === 'tool_calls') message.tool_calls = toolCallsOf(reply.calls);
  return {
    id,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: reply.kind === 'tool_calls' ? 'tool_calls' : 'stop' }],
    usage: usageOf(reply.usage),
  };
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null): unknown {
  return {
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function sendStream(
  res: ServerResponse,
  id: string,
  model: string,
  reply: Extract<ScriptedReply, { kind: 'text' | 'tool_calls' }>,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(sse(chunk(id, model, { role: 'assistant', content: '' }, null)));
  if (reply.text) {
    // Two pieces, so the client really assembles deltas.
    const half = Math.ceil(reply.text.length / 2);
    res.write(sse(chunk(id, model, { content: reply.text.slice(0, half) }, null)));
    res.write(sse(chunk(id, model, { content: reply.text.slice(half) }, null)));
  }
  if (reply.kind === 'tool_calls') {
    toolCallsOf(reply.calls).forEach((call, index) => {
      const fn = call.function as { name: string; arguments: string };
      res.write(
        sse(
          chunk(
            id,
            model,
            { tool_calls: [{ index, id: call.id, type: 'function', function: { name: fn.name, arguments: '' } }] },
            null,
          ),
        ),
      );
      res.write(sse(chunk(id, model, { tool_calls: [{ index, function: { arguments: fn.arguments } }] }, null)));
    });
  }
  res.write(sse(chunk(id, model, {}, reply.kind === 'tool_calls' ? 'tool_calls' : 'stop')));
  res.write(
    sse({
      id,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model,
      choices: [],
      usage: usageOf(reply.usage),
    }),
  );
  res.end('data: [DONE]\n\n');
}
