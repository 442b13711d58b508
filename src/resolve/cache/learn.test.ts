import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveFileText } from '../ladder.js';
import { learnPersonResolution } from './learn.js';
import { ResolutionCache } from './resolution-cache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function cache(): ResolutionCache {
  const dir = mkdtempSync(join(tmpdir(), 'sc-learn-'));
  dirs.push(dir);
  return new ResolutionCache(dir);
}
const hunk = (ours: string, base: string, theirs: string): string =>
  `<<<<<<< HEAD\n${ours}||||||| base\n${base}=======\n${theirs}>>>>>>> other\n`;

describe('learnPersonResolution', () => {
  it('caches what the person put in place of each hunk, so the ladder replays it (rung person) the next time', async () => {
    const c = cache();
    const presented = `intro\n${hunk('one a\n', 'one\n', 'one b\n')}\nmiddle\n${hunk('two a\n', 'two\n', 'two b\n')}end\n`;
    const resolved = 'intro\none a and b\n\nmiddle\ntwo b\nend\n';
    expect(
      await learnPersonResolution(c, { path: 'x.txt', presented, resolved, provenance: { merge: 'up', cell: '2-3' } }),
    ).toHaveLength(2);
    const entries = await c.list();
    expect(entries.map((e) => [e.resolution, e.rung, e.by, e.provenance.merge, e.provenance.file]).sort()).toEqual([
      ['one a and b\n', 'person', 'person', 'up', 'x.txt'],
      ['two b\n', 'person', 'person', 'up', 'x.txt'],
    ]);
    // The same conflicts elsewhere (another cell, another file around them) come back from the cache.
    const again = await resolveFileText(`other top\n${hunk('two a\n', 'two\n', 'two b\n')}`, {
      path: 'y.txt',
      cache: c,
    });
    expect(again.resolutions[0]).toMatchObject({ rung: 'cache', by: 'person:person', text: 'two b\n' });
  });

  it('learns nothing from a file that still holds markers, or a hunk whose context the person rewrote', async () => {
    const c = cache();
    const presented = `intro\n${hunk('a\n', 'o\n', 'b\n')}end\n`;
    expect(await learnPersonResolution(c, { path: 'x', presented, resolved: presented })).toEqual([]);
    expect(await learnPersonResolution(c, { path: 'x', presented, resolved: 'rewritten\nab\nfinish\n' })).toEqual([]);
    expect(await c.list()).toEqual([]);
  });

  it('does not learn an answer a failed check blamed', async () => {
    const c = cache();
    const presented = `intro\n${hunk('a\n', 'o\n', 'b\n')}end\n`;
    const key = c.key({ base: 'o\n', ours: 'a\n', theirs: 'b\n' });
    await c.put(key, { resolution: 'ab\n', rung: 'model', by: 'm' });
    await c.invalidate(key, 'test failed');
    expect(await learnPersonResolution(c, { path: 'x', presented, resolved: 'intro\nab\nend\n' })).toEqual([]);
    expect(await learnPersonResolution(c, { path: 'x', presented, resolved: 'intro\nba\nend\n' })).toHaveLength(1);
  });
});
