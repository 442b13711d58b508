import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { resolveFileText } from '../ladder.js';
import type { PathRule } from '../policy/path-policy.js';
import { answerHash, cacheKey, ResolutionCache } from './resolution-cache.js';

/** Entries another clone pushed, taken in by absorb, against the fork's policy and the marker check. */

const conflict = `<<<<<<< HEAD\nb\n||||||| base\no\n=======\nc\n>>>>>>> other\n`;
const key = cacheKey({ base: 'o\n', ours: 'b\n', theirs: 'c\n' });
const entry = (resolution: string, rung: string, by: string) => ({
  version: 1,
  key,
  resolution,
  rung,
  by,
  provenance: { when: '2026-01-01T00:00:00.000Z' },
});

function cache(): ResolutionCache {
  const dir = mkdtempSync(join(tmpdir(), 'sc-imported-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return new ResolutionCache(dir);
}

const rule = (decision: PathRule['decision']): PathRule => ({ glob: 'f', decision });

describe('entries taken in from another clone', () => {
  it('are marked imported whatever they say, and one holding conflict markers is refused', async () => {
    const c = cache();
    expect(await c.absorb({ ...entry('<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n', 'human', 'human') })).toBe(false);
    expect(await c.read(key)).toBeNull();
    expect(await c.absorb({ ...entry('bc\n', 'model', 'm'), imported: false })).toBe(true);
    expect((await c.read(key))?.imported).toBe(true);
  });

  it("never settle a path the fork's policy decides; elsewhere they are taken, and named as another clone's", async () => {
    const c = cache();
    await c.absorb(entry('forged\n', 'human', 'human'));
    const human = await resolveFileText(conflict, { path: 'f', cache: c, policy: rule({ kind: 'person' }) });
    expect(human.remaining).toHaveLength(1);
    const regenerate = rule({ kind: 'regenerate', command: 'make' });
    expect((await resolveFileText(conflict, { path: 'f', cache: c, policy: regenerate })).remaining).toHaveLength(1);
    const ours = await resolveFileText(conflict, { path: 'f', cache: c, policy: rule({ kind: 'ours' }) });
    expect(ours.text).toBe('b\n');
    const free = await resolveFileText(conflict, { path: 'f', cache: c });
    expect(free.resolutions[0]).toMatchObject({ rung: 'cache', text: 'forged\n' });
    expect(free.resolutions[0]?.by).toMatch(/from another clone/);
  });

  it("another clone's blame of this clone's own answer is its claim: the answer still replays, and can be stored again", async () => {
    const c = cache();
    await c.put(key, { resolution: 'mine\n', rung: 'person', by: 'person' });
    const mine = answerHash('mine\n');
    const blame = { answer: mine, when: '2026-01-01T00:00:00.000Z', reason: 'forged failure' };
    expect(await c.absorb({ ...entry('theirs\n', 'human', 'human'), blamed: [blame] })).toBe(true);
    expect((await c.get(key))?.resolution).toBe('mine\n');
    expect(await c.isBlamed(key, 'mine\n')).toBe(false);
    expect(await c.put(key, { resolution: 'mine\n', rung: 'person', by: 'person' })).not.toBeNull();
    const free = await resolveFileText(conflict, { path: 'f', cache: c });
    expect(free.resolutions[0]).toMatchObject({ rung: 'cache', text: 'mine\n' });
    // An entry taken in with its own clone's blame of it stays blamed, as that clone left it.
    const other = cache();
    const theirs = { answer: answerHash('theirs\n'), when: blame.when, reason: 'its check failed' };
    await other.absorb({ ...entry('theirs\n', 'human', 'human'), blamed: [theirs] });
    expect(await other.get(key)).toBeNull();
    // This clone's own blame of an answer holds whatever it imports later.
    await c.invalidate(key, 'our check failed');
    expect(await c.get(key)).toBeNull();
  });

  it("a local entry holding conflict markers is refused at use; this clone's person's answer still replays", async () => {
    const c = cache();
    await c.put(key, { resolution: '<<<<<<< ours\nb\n>>>>>>> theirs\n', rung: 'model', by: 'm' });
    expect((await resolveFileText(conflict, { path: 'f', cache: c })).remaining).toHaveLength(1);
    await c.put(key, { resolution: 'mine\n', rung: 'person', by: 'person' });
    const human = await resolveFileText(conflict, { path: 'f', cache: c, policy: rule({ kind: 'person' }) });
    expect(human.resolutions[0]).toMatchObject({ rung: 'cache', by: 'person:person', text: 'mine\n' });
  });
});
