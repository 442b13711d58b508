import { symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../../test/helpers/git-repo.js';
import { syntheticSnapshot } from '../../test/fixtures/report/synthetic-run.js';
import { Journal } from '../store/journal.js';
import { parseRunEvent, type RunEvent } from '../store/run-events.js';
import { buildReportModel } from './build-model.js';
import { startUiServer, type UiServer } from './ui-server.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function fetchRaw(server: UiServer, path: string, options: { method?: string; host?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? `127.0.0.1:${server.port}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Read an SSE stream until `done(text)` holds; resolves with the text so far. */
function readEvents(server: UiServer, path: string, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path, headers: { host: `127.0.0.1:${server.port}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
          if (done(text)) {
            req.destroy();
            resolve(text);
          }
        });
      },
    );
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
}

async function serve(): Promise<{ server: UiServer; journal: Journal<RunEvent>; dir: string }> {
  const dir = tempDir();
  const journal = new Journal<RunEvent>(join(dir, 'events.jsonl'), { parse: parseRunEvent });
  journal.append({ type: 'node_entered', node: 'initialize', step: 0 });
  const log = join(dir, 'build.log');
  writeFileSync(log, 'build ok\n');
  // A check that could reach the log directory replaced its log with a link to the server's own environment.
  const linked = join(dir, 'test.log');
  symlinkSync('/proc/self/environ', linked);
  const server = await startUiServer({
    port: 0,
    journal,
    pollMs: 20,
    loadModel: async () => {
      const snap = syntheticSnapshot();
      return buildReportModel(
        { ...snap, events: [...snap.events, ...journal.read().entries.map((e) => ({ ...e, seq: e.seq + 100 }))] },
        { now: new Date() },
      );
    },
    checkLog: (index) => (index === 0 ? { path: log, dir } : index === 2 ? { path: linked, dir } : null),
  });
  onTestFinished(() => server.close());
  return { server, journal, dir };
}

describe('ui server', () => {
  it('listens on 127.0.0.1 only and serves the live page with a strict policy', async () => {
    const { server } = await serve();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetchRaw(server, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toMatch(
      /^default-src 'none'; script-src 'nonce-[^']+'; .*connect-src 'self'/,
    );
    expect(page.body).toMatch(/<body data-events="\/events\?after=\d+" data-view="\/view">/);
    expect(page.body).toMatch(/<a href="\/logs\/0">log<\/a>/);
    const state = JSON.parse((await fetchRaw(server, '/state')).body);
    expect(state).toMatchObject({ version: 1, run: { name: 'up' } });
    expect((await fetchRaw(server, '/view')).body).toMatch(/^<div id="report-meta" data-last-seq="\d+" hidden><\/div>/);
  });

  it('is read-only and serves no path from the request: other methods, hosts and paths are refused', async () => {
    const { server } = await serve();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await fetchRaw(server, '/', { method });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD');
    }
    expect((await fetchRaw(server, '/', { host: 'attacker.example:80' })).status).toBe(421);
    expect((await fetchRaw(server, '/', { host: `localhost:${server.port}` })).status).toBe(200);
    for (const path of [
      '/../../etc/passwd',
      '/logs/../../etc/passwd',
      '/logs/%2e%2e%2fetc%2fpasswd',
      '/logs/1',
      '/logs/2',
      '/logs/-1',
      '/events.jsonl',
      '/state.json',
      '/favicon.ico',
    ]) {
      expect((await fetchRaw(server, path)).status, path).toBe(404);
    }
    const log = await fetchRaw(server, '/logs/0');
    expect(log).toMatchObject({ status: 200, body: 'build ok\n' });
    expect(log.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(log.headers['x-content-type-options']).toBe('nosniff');
  });

  it('streams journal events as server-sent events, from ?after= or Last-Event-ID, including ones appended later', async () => {
    const { server, journal } = await serve();
    journal.append({ type: 'node_entered', node: 'plan_strategy', step: 1 });
    const all = await readEvents(server, '/events', (t) => t.includes('id: 2\n'));
    expect(all).toMatch(/^retry: 2000\n\nid: 1\ndata: \{"seq":1,"ts":"[^"]+","type":"node_entered"\}\n\nid: 2\n/);
    const later = readEvents(server, '/events?after=2', (t) => t.includes('id: 3\n'));
    journal.append({
      type: 'decision',
      kind: 'strategy',
      by: 'planner',
      decision: 'batch',
      reasoning: 'r',
      batchSize: 2,
    });
    const text = await later;
    expect(text).not.toContain('id: 1\n');
    expect(text).toMatch(/id: 3\ndata: \{"seq":3,"ts":"[^"]+","type":"decision"\}/);
  });

  it('says which port is taken, with a fix', async () => {
    const { server } = await serve();
    await expect(
      startUiServer({
        port: server.port,
        journal: { subscribe: () => () => undefined },
        loadModel: async () => {
          throw new Error('unused');
        },
        checkLog: () => null,
      }),
    ).rejects.toMatchObject({
      code: 'ui_port_in_use',
      fix: ['Pick another one: splintercat ui --port N', 'or --port 0 for any free port'],
    });
  });
});
