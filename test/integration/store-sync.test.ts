import { execFileSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunSync } from '../../src/store/sync/index.js';
import type { NewRecord } from '../../src/store/sync/index.js';
import { TestRepo, tempDir, testGitEnv } from '../helpers/git-repo.js';

/** A bare remote and `n` clones of it, each with `origin` pointing there. */
function clones(n: number): { bare: string; repos: TestRepo[] } {
  const bare = join(tempDir('splintercat-remote-'), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', bare], { env: { ...process.env, ...testGitEnv } });
  const first = TestRepo.create();
  first.commit('base', { 'a.txt': 'a\n' });
  first.sh('remote', 'add', 'origin', bare);
  first.sh('push', '-q', 'origin', 'main');
  const repos = [first];
  for (let i = 1; i < n; i++) {
    const repo = TestRepo.create();
    repo.sh('remote', 'add', 'origin', bare);
    repo.sh('fetch', '-q', 'origin');
    repo.sh('checkout', '-q', '-B', 'main', 'origin/main');
    repos.push(repo);
  }
  return { bare, repos };
}

const cell = (id: string, commit: string): NewRecord => ({ kind: 'cell', key: { cell: id, commit } });
const check = (name: string, commit: string, ok: boolean): NewRecord => ({
  kind: 'check',
  key: { check: name, commit, at: '2024-01-01T00:00:00.000Z' },
  body: { success: ok },
});

/** The record paths on the remote's records ref. */
function remoteRecords(bare: string): string[] {
  return execFileSync('git', ['ls-tree', '-r', '--name-only', 'refs/splintercat/up/records'], {
    cwd: bare,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
}

const ONE = '1'.repeat(40);
const TWO = '2'.repeat(40);
const THREE = '3'.repeat(40);

describe('a run shared through a git remote: records', () => {
  it('two clones publishing the same and different records at once: every record once, on both, append-only', async () => {
    const { bare, repos } = clones(2);
    const [a, b] = repos.map((r, i) => new RunSync(r.git, 'up', { remote: 'origin', machine: `m${i}` })) as [
      RunSync,
      RunSync,
    ];
    await a.add([cell('1-1', ONE), check('test', ONE, true)]);
    await b.add([cell('1-1', ONE), cell('2-1', TWO)]);
    // The same record added again counts once.
    expect(await b.add([cell('2-1', TWO)])).toBe(0);
    const outcomes = await Promise.all([a.publish(), b.publish()]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    // Whoever pushed first, the other combined it; one more round each brings both to the union.
    for (const s of [a, b]) expect(await s.publish()).toMatchObject({ ok: true });
    expect(remoteRecords(bare)).toHaveLength(3);
    for (const s of [a, b]) {
      const records = await s.records();
      expect([...records.values()].map((r) => r.kind).sort()).toEqual(['cell', 'cell', 'check']);
      expect(await s.pending()).toBe(0);
    }
    // Nothing was ever removed: every records commit holds all of its parents' records.
    const log = execFileSync('git', ['rev-list', 'refs/splintercat/up/records'], { cwd: bare, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    for (const commit of log) {
      const own = execFileSync('git', ['ls-tree', '-r', '--name-only', commit], { cwd: bare, encoding: 'utf8' });
      const parents = execFileSync('git', ['rev-list', '--parents', '-n1', commit], { cwd: bare, encoding: 'utf8' })
        .trim()
        .split(' ')
        .slice(1);
      for (const p of parents) {
        const theirs = execFileSync('git', ['ls-tree', '-r', '--name-only', p], { cwd: bare, encoding: 'utf8' });
        for (const path of theirs.split('\n').filter(Boolean)) expect(own).toContain(path);
      }
    }
  });

  it('a push rejected because the remote moved is retried after a fetch, and both records land', async () => {
    const { bare, repos } = clones(2);
    const other = new RunSync((repos[1] as TestRepo).git, 'up', { remote: 'origin', machine: 'other' });
    await other.add([cell('3-3', THREE)]);
    let moved = false;
    const sync = new RunSync((repos[0] as TestRepo).git, 'up', {
      remote: 'origin',
      machine: 'this',
      // Between this machine's read and its push, the other machine publishes.
      beforePush: async () => {
        if (moved) return;
        moved = true;
        expect(await other.publish()).toMatchObject({ ok: true, pushed: true });
      },
    });
    await sync.add([cell('1-1', ONE)]);
    const outcome = await sync.publish();
    expect(outcome).toMatchObject({ ok: true, pushed: true, rounds: 2, records: 2 });
    expect(remoteRecords(bare)).toHaveLength(2);
    expect([...(await sync.records()).values()].map((r) => r.by).sort()).toEqual(['other', 'this']);
  });

  it('remote unreachable: work goes on locally and is published once it is back', async () => {
    const { bare, repos } = clones(2);
    const sync = new RunSync((repos[0] as TestRepo).git, 'up', { remote: 'origin', machine: 'm0' });
    await sync.add([cell('1-1', ONE)]);
    expect(await sync.publish()).toMatchObject({ ok: true });
    const away = `${bare}.away`;
    renameSync(bare, away);
    await sync.add([cell('2-2', TWO), check('build', TWO, false)]);
    expect(await sync.publish()).toEqual({ ok: false, reason: 'unreachable', rounds: 1, pending: 2 });
    expect(await sync.records()).toHaveProperty('size', 3);
    renameSync(away, bare);
    expect(await sync.publish()).toMatchObject({ ok: true, pushed: true, records: 3 });
    expect(await sync.pending()).toBe(0);
    const reader = new RunSync((repos[1] as TestRepo).git, 'up', { remote: 'origin', machine: 'm1' });
    expect(await reader.pull()).toBe(true);
    expect(await reader.records()).toHaveProperty('size', 3);
  });

  it('one fact stored with different details on two machines keeps the same record on both (the earlier)', async () => {
    const { repos } = clones(2);
    const clock = (iso: string) => ({ now: () => new Date(iso) });
    const early = new RunSync((repos[0] as TestRepo).git, 'up', {
      remote: 'origin',
      machine: 'early',
      clock: clock('2024-01-01T00:00:00Z'),
    });
    const late = new RunSync((repos[1] as TestRepo).git, 'up', {
      remote: 'origin',
      machine: 'late',
      clock: clock('2024-01-02T00:00:00Z'),
    });
    await late.add([cell('1-1', ONE)]);
    await early.add([cell('1-1', ONE)]);
    await late.publish();
    await early.publish();
    await late.publish();
    for (const s of [early, late]) expect([...(await s.records()).values()].map((r) => r.by)).toEqual(['early']);
  });
});

describe('a run shared through a git remote: mirrored refs', () => {
  it("the engine's state and manual cells go out as they are; a ref the remote changed is left, not overwritten", async () => {
    const { bare, repos } = clones(2);
    const [one, two] = repos as [TestRepo, TestRepo];
    const head = one.head();
    one.sh('update-ref', 'refs/imerge/up/manual/0-0', head);
    // An automatic cell every clone computes for itself: not published.
    one.sh('update-ref', 'refs/imerge/up/auto/1-1', head);
    const state = one.sh('hash-object', '-w', '--stdin');
    one.sh('update-ref', 'refs/imerge/up/state', state);
    const sync = new RunSync(one.git, 'up', { remote: 'origin', machine: 'one' });
    expect(await sync.publishEngine()).toMatchObject({
      ok: true,
      pushed: ['refs/imerge/up/state', 'refs/imerge/up/manual/0-0'],
    });
    const remote = execFileSync('git', ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/imerge/'], {
      cwd: bare,
      encoding: 'utf8',
    });
    expect(remote).toBe(`${head} refs/imerge/up/manual/0-0\n${state} refs/imerge/up/state\n`);
    // Another machine moves the state on the remote; this one changes a cell: the cell goes, the state stays theirs.
    const theirs = two.commit('theirs', { 'b.txt': 'b\n' });
    two.sh('push', '-q', 'origin', `+${theirs}:refs/imerge/up/state`);
    const mine = one.commit('mine', { 'c.txt': 'c\n' });
    one.sh('update-ref', 'refs/imerge/up/manual/0-0', mine);
    expect(await sync.publishEngine()).toMatchObject({
      ok: true,
      pushed: ['refs/imerge/up/manual/0-0'],
      remoteChanged: ['refs/imerge/up/state'],
    });
    // Both change the same ref: diverged, both kept.
    one.sh('update-ref', 'refs/imerge/up/state', mine);
    expect(await sync.publishEngine()).toMatchObject({ ok: true, pushed: [], diverged: ['refs/imerge/up/state'] });
  });

  it("each machine's run state and journal are its own snapshot ref", async () => {
    const { bare, repos } = clones(1);
    const sync = new RunSync((repos[0] as TestRepo).git, 'up', { remote: 'origin', machine: 'box 1' });
    await sync.saveSnapshot({ 'state.json': '{"step":1}\n', 'events.jsonl': '{"seq":1}\n' });
    expect(await sync.publishSnapshot()).toMatchObject({ ok: true, pushed: ['refs/splintercat/up/machines/box_1'] });
    await sync.saveSnapshot({ 'state.json': '{"step":2}\n', 'events.jsonl': '{"seq":1}\n{"seq":2}\n' });
    expect(await sync.publishSnapshot()).toMatchObject({ ok: true, pushed: ['refs/splintercat/up/machines/box_1'] });
    const show = (path: string): string =>
      execFileSync('git', ['show', `refs/splintercat/up/machines/box_1:${path}`], { cwd: bare, encoding: 'utf8' });
    expect(show('state.json')).toBe('{"step":2}\n');
    expect(show('events.jsonl').split('\n').filter(Boolean)).toHaveLength(2);
  });
});
