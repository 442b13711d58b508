import { closeSync, createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SplintercatError, UsageError } from '../errors/index.js';
import { openRegular } from '../util/safe-read.js';
import type { JournalEntryBase } from '../store/journal.js';
import { renderHtmlReport, renderReportBody, reportCsp } from './html/page.js';
import type { ReportModel } from './model.js';

/** The web view only ever listens here: it shows a repository's content and must not be reachable from elsewhere. */
const UI_HOST = '127.0.0.1';

/** What the UI follows for live updates (a Journal; tests pass a stub). */
interface EventSource {
  subscribe(onEntry: (entry: JournalEntryBase) => void, options?: { afterSeq?: number; pollMs?: number }): () => void;
}

export interface UiServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** The current view model (rebuilt by the caller; the server caches it until the journal moves). */
  loadModel: () => Promise<ReportModel>;
  journal: EventSource;
  /**
   * The absolute path of check `index`'s log and the directory it must be in, or null (the only
   * files the server reads, never through a link: see readRegular).
   */
  checkLog: (index: number) => { path: string; dir: string } | null;
  /** How often the journal is polled besides file notifications (ms). */
  pollMs?: number;
  /** Seconds between SSE keep-alive comments. */
  keepAliveMs?: number;
}

export interface UiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const baseHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The report model, rebuilt when the journal moved past it; one build at a time. */
interface ModelCache {
  /** The model, rebuilt when the journal moved past it (or past `atLeast`, a seq the page already saw). */
  get(atLeast?: number): Promise<ReportModel>;
  /** Note that the journal reached `seq`. */
  moved(seq: number): void;
}

function modelCache(loadModel: () => Promise<ReportModel>): ModelCache {
  let cached: { model: ReportModel; seq: number } | null = null;
  let building: Promise<ReportModel> | null = null;
  let journalSeq = 0;
  return {
    moved: (seq) => {
      journalSeq = Math.max(journalSeq, seq);
    },
    get: (atLeast = 0) => {
      journalSeq = Math.max(journalSeq, atLeast);
      if (cached && cached.seq >= journalSeq) return Promise.resolve(cached.model);
      if (building) return building;
      const seq = journalSeq;
      building = loadModel()
        .then((m) => {
          cached = { model: m, seq: Math.max(seq, m.lastSeq) };
          return m;
        })
        .finally(() => {
          building = null;
        });
      return building;
    },
  };
}

function serveLog(options: UiServerOptions, res: ServerResponse, index: number, head: boolean): void {
  const log = options.checkLog(index);
  const opened = log === null ? null : openRegular(log.path, { within: log.dir, singleLink: true });
  if (opened === null || !opened.ok) {
    send(res, 404, 'text/plain; charset=utf-8', 'no such check log\n');
    return;
  }
  const size = opened.size;
  res.writeHead(200, {
    ...baseHeaders,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': size,
    'Content-Security-Policy': "default-src 'none'",
  });
  if (head) {
    closeSync(opened.fd);
    res.end();
    return;
  }
  // The opened file itself (not the path again), and no more than its size then.
  createReadStream('', { fd: opened.fd, start: 0, end: Math.max(0, size - 1) })
    .on('error', () => res.destroy())
    .pipe(res);
}

/** `/events`: journal events as server-sent events, from `Last-Event-ID` or `?after=`, until either side closes. */
function streamEvents(
  options: UiServerOptions,
  streams: Set<ServerResponse>,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): void {
  const fromHeader = Number(req.headers['last-event-id']);
  const fromQuery = Number(url.searchParams.get('after'));
  const afterSeq =
    Number.isInteger(fromHeader) && fromHeader > 0
      ? fromHeader
      : Number.isInteger(fromQuery) && fromQuery > 0
        ? fromQuery
        : 0;
  res.writeHead(200, {
    ...baseHeaders,
    'Content-Type': 'text/event-stream; charset=utf-8',
    Connection: 'keep-alive',
  });
  res.write('retry: 2000\n\n');
  streams.add(res);
  // Only what the page needs to decide to refresh: the rest it reads through /view.
  const unsubscribe = options.journal.subscribe(
    (e) => {
      res.write(`id: ${e.seq}\ndata: ${JSON.stringify({ seq: e.seq, ts: e.ts, type: e.type })}\n\n`);
    },
    { afterSeq, pollMs: options.pollMs ?? 250 },
  );
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs ?? 15_000);
  const end = (): void => {
    clearInterval(keepAlive);
    unsubscribe();
    streams.delete(res);
  };
  req.on('close', end);
  res.on('close', end);
}

/** What one request needs of the server: its options, its model, its open streams and its port. */
interface UiContext {
  options: UiServerOptions;
  model: ModelCache;
  streams: Set<ServerResponse>;
  port: number;
}

/** `/`, `/view` and `/state`: the report page, its content, the model as JSON. False for another path. */
async function servePage(ctx: UiContext, res: ServerResponse, url: URL, head: boolean): Promise<boolean> {
  const after = Number(url.searchParams.get('after'));
  const atLeast = Number.isSafeInteger(after) && after > 0 ? after : 0;
  const logHref = (c: { index: number }): string => `/logs/${c.index}`;
  if (url.pathname === '/') {
    const m = await ctx.model.get();
    const nonce = randomBytes(16).toString('base64');
    const html = renderHtmlReport(m, {
      nonce,
      live: { eventsUrl: `/events?after=${m.lastSeq}`, viewUrl: '/view' },
      logHref,
    });
    send(res, 200, 'text/html; charset=utf-8', head ? '' : html, { 'Content-Security-Policy': reportCsp(nonce, true) });
  } else if (url.pathname === '/view') {
    const m = await ctx.model.get(atLeast);
    const body = head ? '' : renderReportBody(m, { live: { eventsUrl: '/events', viewUrl: '/view' }, logHref });
    send(res, 200, 'text/html; charset=utf-8', body, { 'Content-Security-Policy': "default-src 'none'" });
  } else if (url.pathname === '/state') {
    const m = await ctx.model.get(atLeast);
    send(res, 200, 'application/json; charset=utf-8', head ? '' : `${JSON.stringify(m)}\n`);
  } else return false;
  return true;
}

async function handle(ctx: UiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, 'text/plain; charset=utf-8', 'read-only: only GET and HEAD are served\n', { Allow: 'GET, HEAD' });
    return;
  }
  const host = req.headers.host ?? '';
  if (host !== `${UI_HOST}:${ctx.port}` && host !== `localhost:${ctx.port}`) {
    send(res, 421, 'text/plain; charset=utf-8', 'unexpected Host header\n');
    return;
  }
  const url = new URL(req.url ?? '/', `http://${UI_HOST}:${ctx.port}`);
  const head = req.method === 'HEAD';
  if (await servePage(ctx, res, url, head)) return;
  if (url.pathname === '/events') {
    if (head) send(res, 200, 'text/event-stream', '');
    else streamEvents(ctx.options, ctx.streams, req, res, url);
    return;
  }
  const log = /^\/logs\/(\d{1,6})$/.exec(url.pathname);
  if (log) serveLog(ctx.options, res, Number(log[1]), head);
  else send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
}

/** Listen on UI_HOST:`port`; a port in use or another failure is a clear error. */
function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError('ui_port_in_use', {
              what: `Port ${port} on ${UI_HOST} is already in use`,
              fix: ['Pick another one: splintercat ui --port N', 'or --port 0 for any free port'],
            })
          : new SplintercatError('ui_listen_failed', {
              what: `The web view could not listen on ${UI_HOST}:${port}`,
              why: error.message,
              cause: error,
            }),
      );
    };
    server.once('error', onError);
    server.listen(port, UI_HOST, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/**
 * The read-only live view of a merge: `GET /` (the report page, refreshed live), `/view` (its
 * content), `/state` (the view model as JSON), `/events` (journal events as server-sent events,
 * resuming after `Last-Event-ID` or `?after=`), `/logs/N` (check N's log). Binds 127.0.0.1
 * only, answers GET and HEAD only, checks the Host header (no DNS rebinding) and serves no
 * path from the request: a log is found by its index in the run state.
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const ctx: UiContext = { options, model: modelCache(options.loadModel), streams: new Set(), port: 0 };
  const stopJournal = options.journal.subscribe((e) => ctx.model.moved(e.seq), { pollMs: options.pollMs ?? 250 });
  const server: Server = createServer((req, res) => {
    handle(ctx, req, res).catch((error: unknown) => {
      const message = `splintercat ui: ${error instanceof Error ? error.message : String(error)}\n`;
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', message);
      else res.destroy();
    });
  });
  try {
    await listen(server, options.port);
  } catch (error) {
    stopJournal();
    throw error;
  }
  ctx.port = (server.address() as AddressInfo).port;
  return {
    url: `http://${UI_HOST}:${ctx.port}/`,
    port: ctx.port,
    close: () =>
      new Promise<void>((resolve) => {
        stopJournal();
        for (const res of ctx.streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { ...baseHeaders, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...extra });
  res.end(body);
}
