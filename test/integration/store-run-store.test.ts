import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo, tempDir } from '../helpers/git-repo.js';
import { RunStore, validateRunName } from '../../src/store/run-store.js';
import { processAlive } from '../../src/util/leftovers.js';
import { SplintercatError } from '../../src/errors/index.js';

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(result.stdout);
}

describe('run store', () => {
  it('lives in the git common dir and lists runs that have durable files', async () => {
    const repo = TestRepo.create();
    repo.commit('init', { a: '1' });
    const store = await RunStore.forRepo(repo.git);
    expect(store.root).toBe(join(repo.dir, '.git', 'splintercat'));
    expect(store.list()).toEqual([]);
    const p = store.ensure('up-1');
    expect(p).toEqual({
      dir: join(store.root, 'up-1'),
      state: join(store.root, 'up-1', 'state.json'),
      backup: join(store.root, 'up-1', 'state.json.bak'),
      journal: join(store.root, 'up-1', 'events.jsonl'),
      lock: join(store.root, 'up-1', 'lock'),
      rejected: join(store.root, 'up-1', 'rejected.jsonl'),
    });
    expect(store.list()).toEqual([]); // an empty directory is not a run
    writeFileSync(p.journal, '');
    store.ensure('b-run');
    writeFileSync(store.paths('b-run').state, '{}');
    expect(store.list().map((r) => [r.name, r.hasState, r.hasJournal, r.lock.state])).toEqual([
      ['b-run', true, false, 'free'],
      ['up-1', false, true, 'free'],
    ]);
    expect(store.exists('up-1')).toBe(true);
    expect(store.exists('nope')).toBe(false);
  });

  it('rejects unsafe names with an actionable error', () => {
    for (const bad of ['../x', 'a/b', '', '-x', 'x.lock', 'a..b']) {
      let caught: unknown;
      try {
        validateRunName(bad);
      } catch (error) {
        caught = error;
      }
      expect(SplintercatError.isInstance(caught) && caught.kind, bad).toBe('usage');
    }
    expect(() => validateRunName('upstream-2024.06_x')).not.toThrow();
  });

  it('a live holder blocks a second run; release frees it; a dead holder is taken over', () => {
    const root = tempDir();
    const me = new RunStore(root, { host: 'h1' });
    const first = me.acquire('m');
    if (!first.ok) throw new Error('expected the lock');
    const lockText = JSON.parse(readFileSync(join(root, 'm', 'lock'), 'utf8')) as Record<string, unknown>;
    expect(lockText).toMatchObject({ pid: process.pid, host: 'h1' });
    const other = new RunStore(root, { host: 'h1', pid: process.pid + 1 });
    const second = other.acquire('m');
    expect(second.ok).toBe(false);
    if (!second.ok) expect(second.holder.pid).toBe(process.pid);
    first.lock.release();
    expect(existsSync(join(root, 'm', 'lock'))).toBe(false);

    const dead = deadPid();
    expect(processAlive(dead)).toBe(false);
    const ghost = new RunStore(root, { host: 'h1', pid: dead });
    const ghostLock = ghost.acquire('m');
    expect(ghostLock.ok).toBe(true);
    expect(me.lockStatus('m')).toMatchObject({ state: 'stale', info: { pid: dead } });
    const taken = me.acquire('m');
    expect(taken.ok).toBe(true);
    if (taken.ok) {
      expect(taken.tookOverStale?.pid).toBe(dead);
      // The old holder's release must not remove the new holder's lock.
      if (ghostLock.ok) ghostLock.lock.release();
      expect(me.lockStatus('m')).toMatchObject({ state: 'held', info: { pid: process.pid } });
      taken.lock.release();
    }
  });

  it('acquire clears lock temp files of killed processes', () => {
    const root = tempDir();
    const store = new RunStore(root);
    const dead = deadPid();
    mkdirSync(join(root, 'm'));
    writeFileSync(join(root, 'm', `lock.${dead}-abc123.tmp`), '{}');
    const got = store.acquire('m');
    expect(got.ok).toBe(true);
    expect(readdirSync(join(root, 'm'))).toEqual(['lock']);
  });

  it('a lock from another host is never treated as stale', () => {
    const root = tempDir();
    const there = new RunStore(root, { host: 'other', pid: deadPid() });
    expect(there.acquire('m').ok).toBe(true);
    const here = new RunStore(root, { host: 'here' });
    expect(here.lockStatus('m').state).toBe('held');
    expect(here.acquire('m').ok).toBe(false);
    expect(here.breakStaleLock('m')).toBe(false);
  });

  it('an unreadable lock is an actionable error, and breakStaleLock clears it', () => {
    const root = tempDir();
    const store = new RunStore(root);
    mkdirSync(join(root, 'm'));
    writeFileSync(join(root, 'm', 'lock'), 'garbage');
    let caught: unknown;
    try {
      store.acquire('m');
    } catch (error) {
      caught = error;
    }
    expect(SplintercatError.isInstance(caught) && caught.code).toBe('lock_unreadable');
    expect(store.breakStaleLock('m')).toBe(true);
    expect(store.acquire('m').ok).toBe(true);
  });

  it('remove refuses while another live process holds the run', () => {
    const root = tempDir();
    const holder = new RunStore(root, { pid: process.ppid });
    expect(holder.acquire('m').ok).toBe(true);
    writeFileSync(join(root, 'm', 'events.jsonl'), '');
    const store = new RunStore(root);
    expect(store.remove('m')).toMatchObject({ ok: false, reason: 'locked', holder: { pid: process.ppid } });
    expect(existsSync(join(root, 'm'))).toBe(true);
    new RunStore(root, { pid: process.ppid }).breakStaleLock('m'); // live: not removed
    expect(existsSync(join(root, 'm', 'lock'))).toBe(true);
    const mine = new RunStore(root, { pid: process.ppid });
    expect(mine.remove('m')).toEqual({ ok: true, removed: true });
    expect(existsSync(join(root, 'm'))).toBe(false);
    expect(store.remove('m')).toEqual({ ok: true, removed: false });
  });
});
