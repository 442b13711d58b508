import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nullLogger } from '../../src/log/logger.js';
import { ResolutionCache } from '../../src/resolve/cache/resolution-cache.js';
import { RunStore } from '../../src/store/index.js';
import { initialRunState, type CheckRecord, type RunState } from '../../src/store/run-state.js';
import { claimsFor } from '../../src/workflow/share/check-claims.js';
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
async function shared(
  repo: TestRepo,
  machine: string,
  options: { cache?: ResolutionCache; beforePush?: (round: number) => Promise<void> } = {},
): Promise<RunShare> {
  const store = await RunStore.forRepo(repo.git);
  writeShare(store, 'up', { remote: 'origin', machine });
  const share = await RunShare.open(
    repo.git,
    store,
    'up',
    { lease: 60, commands: { build: 'make' }, ...options },
    nullLogger,
  );
  if (!share) throw new Error('not shared');
  return share;
}

function stateWith(repo: TestRepo, checks: Array<Pick<CheckRecord, 'name' | 'commit' | 'success'>>): RunState {
  const state = initialRunState({
    name: 'up',
    upstream: { ref: 'upstream', oid: repo.head() },
    fork: { branch: 'main', originalOid: repo.head() },
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
  it("a check passed on one clone is another clone's claim of the same tree, never its result", async () => {
    const [a, b] = twoClones();
    expect(a.head()).not.toBe(b.head());
    const alice = await shared(a, 'alice');
    const published = stateWith(a, [{ name: 'build', commit: a.head(), success: true }]);
    expect(await alice.publish(published)).toBe(true);
    const bob = await shared(b, 'bob');
    const claims = await claimsFor(b.git, bob, 'build', 'make', b.head());
    expect(claims).toMatchObject([{ check: 'build', by: 'alice', success: true }]);
    // Another command is another check; a tree nobody checked has no claim.
    expect(await claimsFor(b.git, bob, 'build', 'make all', b.head())).toEqual([]);
    b.commit('more', { 'b.txt': 'b\n' });
    expect(await claimsFor(b.git, bob, 'build', 'make', b.head())).toEqual([]);
    // A clone's own records are its results, not claims.
    expect(await claimsFor(a.git, alice, 'build', 'make', a.head())).toEqual([]);
  });

  it('a resolution goes out in one push with its tree and its claim released; a push the records beat is read, combined and pushed again', async () => {
    const [a, b] = twoClones();
    const bare = a.sh('remote', 'get-url', 'origin');
    // The remote's post-receive hook writes down each push's refs, as a CI hook would see them.
    const pushes = join(tempDir('splintercat-pushes-'), 'pushes.log');
    writeFileSync(join(bare, 'hooks', 'post-receive'), `#!/bin/sh\n{ cat; echo ---; } >> '${pushes}'\n`, {
      mode: 0o755,
    });
    const pushed = (): string[][] =>
      readFileSync(pushes, 'utf8')
        .split('---\n')
        .filter(Boolean)
        .map((push) =>
          push
            .trim()
            .split('\n')
            .map((line) => line.split(' ')[2] as string),
        );
    const bob = await shared(b, 'bob');
    let armed = false;
    // Once armed: between alice's reading of the remote and her push, bob publishes a check of his.
    const beforePush = async (): Promise<void> => {
      if (!armed) return;
      armed = false;
      expect(await bob.publish(stateWith(b, [{ name: 'build', commit: b.head(), success: true }]))).toBe(true);
    };
    const alice = await shared(a, 'alice', { beforePush });
    const state = stateWith(a, []);
    expect(await alice.publish(state)).toBe(true);
    expect((await alice.select([{ i1: 1, i2: 1 }])).mine).toEqual([{ i1: 1, i2: 1 }]);
    const resolution = a.commit('resolution', { 'a.txt': 'resolved\n' });
    state.conflicts.push({
      id: '1-1',
      cell: { i1: 1, i2: 1 },
      files: [{ path: 'a.txt', kind: 'content', hunks: [] }],
      status: 'resolved',
      resolutionTree: a.sh('rev-parse', `${resolution}^{tree}`),
      resolutionCommit: resolution,
      attempts: 1,
      resolvedInAttempt: 1,
      blame: null,
    });
    const before = pushed().length;
    armed = true;
    expect(await alice.publish(state)).toBe(true);
    expect(armed).toBe(false);
    // Alice's rejected push applied nothing; the next carried all three, after bob's (his first, with his snapshot).
    const after = pushed().slice(before);
    expect(after.map((refs) => refs.sort())).toEqual([
      ['refs/splintercat/up/machines/bob', 'refs/splintercat/up/records'],
      ['refs/splintercat/up/claims/1-1', 'refs/splintercat/up/records', 'refs/splintercat/up/trees/1-1'],
    ]);
    expect(await listRemoteRefs(a.git, 'origin', ['refs/splintercat/up/claims/*'])).toEqual(new Map());
    const kinds = [...(await alice.sync.records()).values()].map((r) => `${r.kind} by ${r.by}`).sort();
    expect(kinds).toEqual(['check by bob', 'resolution by alice']);
    // Published and released: the next step has nothing for the remote and pushes nothing.
    expect(await alice.publish(state)).toBe(true);
    expect(pushed().length).toBe(before + 2);
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
