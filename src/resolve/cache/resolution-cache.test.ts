import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { answerHash, cacheKey, ResolutionCache, withEol } from './resolution-cache.js';

const run = promisify(execFile);
const dirs: string[] = [];
function temp(): string {
  const d = mkdtempSync(join(tmpdir(), 'sc-cache-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const clock = { now: () => new Date('2026-01-02T03:04:05.000Z') };
const sides = { base: 'a\n', ours: 'b\n', theirs: 'c\n' };

describe('cacheKey', () => {
  it('ignores CRLF and trailing blanks but not content or the side it is on', () => {
    expect(cacheKey(sides)).toBe(cacheKey({ base: 'a\r\n', ours: 'b  \n', theirs: 'c\r\n' }));
    expect(cacheKey(sides)).not.toBe(cacheKey({ base: 'a\n', ours: 'c\n', theirs: 'b\n' }));
    expect(cacheKey(sides)).not.toBe(cacheKey({ base: null, ours: 'b\n', theirs: 'c\n' }));
  });
});

describe('ResolutionCache', () => {
  it('stores, reuses and invalidates entries with provenance', async () => {
    const cache = new ResolutionCache(temp(), clock);
    const key = cache.key(sides);
    expect(await cache.get(key)).toBeNull();
    await cache.put(key, {
      resolution: 'bc\n',
      rung: 'model',
      by: 'test-model',
      provenance: { merge: 'm', cell: '3-4', file: 'f.c' },
    });
    expect(await cache.get(key)).toMatchObject({
      resolution: 'bc\n',
      rung: 'model',
      by: 'test-model',
      provenance: { when: '2026-01-02T03:04:05.000Z', cell: '3-4', file: 'f.c' },
    });
    // a fresh instance (another run) sees it
    expect((await new ResolutionCache(cache.dir).get(key))?.resolution).toBe('bc\n');
    expect(await cache.invalidate(key, 'check build failed')).toBe(true);
    expect(await cache.get(key)).toBeNull();
    expect((await cache.read(key))?.blamed).toEqual([
      { answer: answerHash('bc\n'), when: '2026-01-02T03:04:05.000Z', reason: 'check build failed' },
    ]);
    expect(await cache.invalidate(cacheKey({ base: null, ours: 'x', theirs: 'y' }), 'nothing')).toBe(false);
  });

  it('never stores or replays a blamed answer again, in this run or a later one; another answer is kept', async () => {
    const cache = new ResolutionCache(temp(), clock);
    const key = cache.key(sides);
    await cache.put(key, { resolution: 'bc\n', rung: 'rule', by: 'keep-both', provenance: { merge: 'run-1' } });
    await cache.invalidate(key, 'test failed', 'run-1');
    expect(await cache.isBlamed(key, 'bc\n')).toBe(true);
    expect(await cache.isBlamed(key, 'bc\r\n')).toBe(true);
    // The same answer offered again (the rule gives it on the retry, or in the next run) is refused.
    expect(await cache.put(key, { resolution: 'bc\n', rung: 'rule', by: 'keep-both' })).toBeNull();
    expect(await new ResolutionCache(cache.dir).get(key)).toBeNull();
    // A person's different answer is stored and replayed; the blame is remembered with it.
    await cache.put(key, { resolution: 'cb\n', rung: 'person', by: 'person', provenance: { merge: 'run-2' } });
    expect(await cache.get(key)).toMatchObject({ resolution: 'cb\n', rung: 'person', provenance: { merge: 'run-2' } });
    expect((await cache.read(key))?.blamed).toEqual([
      { answer: answerHash('bc\n'), when: '2026-01-02T03:04:05.000Z', reason: 'test failed', merge: 'run-1' },
    ]);
    expect(await cache.isBlamed(key, 'cb\n')).toBe(false);
  });

  it('keeps an entry of the older shape (invalidated) dead, and carries its blame into a new put', async () => {
    const cache = new ResolutionCache(temp(), clock);
    const key = cache.key(sides);
    await cache.put(key, { resolution: 'old\n', rung: 'rule', by: 'r' });
    const file = join(cache.dir, key.slice(0, 2), `${key}.json`);
    const legacy = {
      version: 1,
      key,
      resolution: 'old\n',
      rung: 'rule',
      by: 'r',
      provenance: { when: 'x' },
      invalidated: { when: 'y', reason: 'blamed' },
    };
    writeFileSync(file, JSON.stringify(legacy));
    expect(await cache.get(key)).toBeNull();
    expect(await cache.put(key, { resolution: 'old\n', rung: 'rule', by: 'r' })).toBeNull();
    expect(await cache.put(key, { resolution: 'new\n', rung: 'model', by: 'm' })).toMatchObject({
      blamed: [{ answer: answerHash('old\n'), reason: 'blamed' }],
    });
  });

  it('stores resolutions with LF endings; a replay takes the line endings of its file', async () => {
    const cache = new ResolutionCache(temp(), clock);
    const key = cache.key(sides);
    await cache.put(key, { resolution: 'one\r\ntwo\r\n', rung: 'person', by: 'person' });
    expect((await cache.get(key))?.resolution).toBe('one\ntwo\n');
    expect(withEol('one\ntwo\n', '\r\n')).toBe('one\r\ntwo\r\n');
    expect(withEol('one\r\ntwo\n', '\n')).toBe('one\ntwo\n');
  });

  it('removes one entry, the blamed ones, or all', async () => {
    const cache = new ResolutionCache(temp(), clock);
    const keys = ['a', 'b', 'c'].map((x) => cache.key({ base: null, ours: x, theirs: `${x}2` }));
    for (const k of keys) await cache.put(k, { resolution: 'r', rung: 'rule', by: 'r' });
    await cache.invalidate(keys[0]!, 'failed');
    expect(await cache.clear({ blamedOnly: true })).toBe(1);
    expect((await cache.list()).map((e) => e.key).sort()).toEqual([keys[1], keys[2]].sort());
    expect(await cache.remove(keys[1]!)).toBe(true);
    expect(await cache.remove(keys[1]!)).toBe(false);
    expect(await cache.clear()).toBe(1);
    expect(await cache.list()).toEqual([]);
  });

  it('treats a damaged entry as a miss and rejects bad keys with a clear error', async () => {
    const cache = new ResolutionCache(temp());
    const key = cache.key(sides);
    await cache.put(key, { resolution: 'x', rung: 'rule', by: 'r' });
    writeFileSync(join(cache.dir, key.slice(0, 2), `${key}.json`), '{ torn');
    expect(await cache.get(key)).toBeNull();
    await expect(cache.get('../../etc/passwd')).rejects.toMatchObject({ code: 'cache_key_invalid' });
  });

  it('is safe with concurrent writers in separate processes', async () => {
    const dir = temp();
    const script = resolve(dir, 'writer.mts');
    const modulePath = resolve(import.meta.dirname, 'resolution-cache.ts');
    writeFileSync(
      script,
      `import { ResolutionCache } from ${JSON.stringify(modulePath)};
const [, , dir, id] = process.argv;
const cache = new ResolutionCache(dir);
for (let i = 0; i < 40; i++) {
  const key = cache.key({ base: 'b', ours: 'o' + (i % 10), theirs: 't' });
  await cache.put(key, { resolution: 'writer ' + id + ' ' + 'x'.repeat(5000) + i, rung: 'rule', by: 'w' + id });
  const got = await cache.get(key);
  if (got === null) { console.error('torn read'); process.exit(1); }
}
`,
    );
    const cacheDir = join(dir, 'cache');
    await Promise.all(
      ['1', '2', '3', '4'].map((id) =>
        run(process.execPath, ['--import', 'tsx', script, cacheDir, id], {
          cwd: resolve(import.meta.dirname, '../../..'),
        }),
      ),
    );
    const cache = new ResolutionCache(cacheDir);
    const entries = await cache.list();
    expect(entries).toHaveLength(10);
    for (const e of entries) expect(e.resolution).toMatch(/^writer [1-4] x{5000}\d+$/);
    // no temp files left behind
    for (const shard of readdirSync(cacheDir))
      for (const name of readdirSync(join(cacheDir, shard))) expect(name).toMatch(/^[0-9a-f]{64}\.json$/);
  }, 60_000);
});
