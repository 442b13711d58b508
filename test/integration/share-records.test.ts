import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nullLogger } from '../../src/log/logger.js';
import { ResolutionCache } from '../../src/resolve/cache/resolution-cache.js';
import { RunStore } from '../../src/store/index.js';
import { initialRunState, type CheckRecord, type RunState } from '../../src/store/run-state.js';
import { reusedCheck } from '../../src/workflow/share/check-reuse.js';
import { shareCache } from '../../src/workflow/share/cache-share.js';
import { releaseOwnClaims } from '../../src/workflow/share/release-claims.js';
import { listRemoteRefs } from '../../src/git/remote-refs.js';
import { remoteChange } from '../../src/workflow/share/remote-change.js';
import { RunShare } from '../../src/workflow/share/run-share.js';
import { writeShare } from '../../src/workflow/share/share-file.js';
import { TestRepo, tempDir, testGitEnv } from '../helpers/git-repo.js';

/** A bare remote and two clones of it, each with a commit of the same tree (different commits). */
function twoClones(): [TestRepo, TestRepo] {
  const bare = join(tempDir('splintercat-share-'), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', bare], { env: { ...process.env, ...testGitEnv } });
  return ['alice', 'bob'].map((who) => {
    const repo = TestRepo.create();
    repo.commit(`base by ${who}`, { 'a.txt': 'a\n' });
    repo.sh('remote', 'add', 'origin', bare);
    return repo;
  }) as [TestRepo, TestRepo];
}

/** Run `up` of `repo` shared through origin as machine `machine`. */
async function shared(repo: TestRepo, machine: string, options: { cache?: ResolutionCache } = {}): Promise<RunShare> {
  const store = await RunStore.forRepo(repo.git);
  writeShare(store, 'up', { remote: 'origin', machine });
  const share = await RunShare.open(
    repo.git,
    store,
    'up',
    { lease: 60, commands: { build: 'make' }, ...(options.cache ? { cache: options.cache } : {}) },
    nullLogger,
  );
  if (!share) throw new Error('not shared');
  return share;
}

function stateWith(repo: TestRepo, checks: Array<Pick<CheckRecord, 'name' | 'commit' | 'success'>>): RunState {
  const state = initialRunState({
    name: 'up',
    source: { ref: 'upstream', oid: repo.head() },
    target: { branch: 'main', originalOid: repo.head() },
    workdir: repo.dir,
    phase: 'check',
    now: new Date('2026-01-01T00:00:00Z'),
  });
  for (const [k, c] of checks.entries())
    state.checks.push({
      ...c,
      cell: null,
      target: 'cell',
      exitCode: c.success ? 0 : 1,
      timedOut: false,
      durationMs: 1000,
      logFile: '/dev/null',
      summary: null,
      attempt: 1,
      at: `2026-01-01T00:00:0${k}.000Z`,
    });
  return state;
}

describe('what a shared run shares besides its resolutions', () => {
  it("a check passed on one clone is not run again on another clone's commit of the same tree; a failure is", async () => {
    const [a, b] = twoClones();
    expect(a.head()).not.toBe(b.head());
    const alice = await shared(a, 'alice');
    const published = stateWith(a, [{ name: 'build', commit: a.head(), success: true }]);
    expect(await alice.publish(published)).toBe(true);
    const bob = await shared(b, 'bob');
    const logs = tempDir('splintercat-share-logs-');
    const now = new Date();
    const reused = await reusedCheck(b.git, bob, 'build', 'make', b.head(), logs, now);
    expect(reused?.from.by).toBe('alice');
    expect(reused?.result).toMatchObject({ name: 'build', success: true, exitCode: 0 });
    // Another command is another check; a tree nobody checked is checked here.
    expect(await reusedCheck(b.git, bob, 'build', 'make all', b.head(), logs, now)).toBeNull();
    b.commit('more', { 'b.txt': 'b\n' });
    expect(await reusedCheck(b.git, bob, 'build', 'make', b.head(), logs, now)).toBeNull();
    // A failure on the same tree is run again here: its log and its judgement are this clone's.
    const failed = stateWith(a, [{ name: 'build', commit: a.head(), success: true }]);
    a.commit('more', { 'b.txt': 'b\n' });
    failed.checks.push({
      ...(failed.checks[0] as CheckRecord),
      commit: a.head(),
      success: false,
      at: '2026-01-01T00:01:00.000Z',
    });
    expect(await alice.publish(failed)).toBe(true);
    expect(await reusedCheck(b.git, bob, 'build', 'make', b.head(), logs, now)).toBeNull();
  });

  it("abort's release: the claims this clone holds are freed at once, another clone's stay", async () => {
    const [a, b] = twoClones();
    const [alice, bob] = [await shared(a, 'alice'), await shared(b, 'bob')];
    expect((await alice.claims.take('1-1', null)).ok).toBe(true);
    expect((await alice.claims.take('2-1', null)).ok).toBe(true);
    expect((await bob.claims.take('1-2', null)).ok).toBe(true);
    const store = await RunStore.forRepo(a.git);
    expect(await releaseOwnClaims(a.git, store, 'up', 60)).toEqual(['1-1', '2-1']);
    expect([...((await bob.claims.list()) ?? new Map()).keys()]).toEqual(['1-2']);
    expect((await bob.claims.take('1-1', null)).ok).toBe(true);
    // A run that is not shared has nothing to release.
    expect(await releaseOwnClaims(a.git, store, 'other', 60)).toEqual([]);
  });

  it("the resolution cache travels through refs/splintercat/cache: each clone's entries reach the other", async () => {
    const [a, b] = twoClones();
    const [cacheA, cacheB] = [new ResolutionCache(tempDir('cache-a-')), new ResolutionCache(tempDir('cache-b-'))];
    const sides = (n: number): { base: string; ours: string; theirs: string } => ({
      base: `base ${n}\n`,
      ours: `ours ${n}\n`,
      theirs: `theirs ${n}\n`,
    });
    await cacheA.put(cacheA.key(sides(1)), { resolution: 'one\n', rung: 'model', by: 'm' });
    await cacheB.put(cacheB.key(sides(2)), { resolution: 'two\n', rung: 'model', by: 'm' });
    expect(await shareCache(a.git, 'origin', cacheA)).toBe(0);
    expect(await shareCache(b.git, 'origin', cacheB)).toBe(1);
    expect((await cacheB.get(cacheB.key(sides(1))))?.resolution).toBe('one\n');
    expect(await shareCache(a.git, 'origin', cacheA)).toBe(1);
    expect((await cacheA.get(cacheA.key(sides(2))))?.resolution).toBe('two\n');
    // Nothing new either way: nothing taken in, nothing pushed.
    const before = execFileSync('git', ['ls-remote', 'origin', 'refs/splintercat/cache'], {
      cwd: a.dir,
      encoding: 'utf8',
    });
    expect(await shareCache(b.git, 'origin', cacheB)).toBe(0);
    expect(
      execFileSync('git', ['ls-remote', 'origin', 'refs/splintercat/cache'], { cwd: a.dir, encoding: 'utf8' }),
    ).toBe(before);
  });

  it('a drive waiting for the others wakes when a claim is released, and gives up at its deadline', async () => {
    const [a, b] = twoClones();
    const bob = await shared(b, 'bob');
    const taken = await bob.claims.take('1-1', null);
    if (!taken.ok) throw new Error('not taken');
    const patterns = ['refs/splintercat/up/claims/*'];
    const before = (await listRemoteRefs(a.git, 'origin', patterns)) ?? new Map<string, string>();
    expect(before.size).toBe(1);
    // Nothing changes: it gives up at its deadline.
    expect(await remoteChange(a.git, 'origin', patterns, before, Date.now() + 600)).toBe(false);
    // Released since it was seen held: the wait ends at its first look.
    expect(await bob.claims.release(taken.claim)).toBe(true);
    expect(await remoteChange(a.git, 'origin', patterns, before, Date.now() + 60_000)).toBe(true);
  });
});
