import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Claims } from '../../src/store/sync/index.js';
import type { Clock } from '../../src/util/clock.js';
import { TestRepo, tempDir, testGitEnv } from '../helpers/git-repo.js';

/** A bare remote and two clones of it. */
function twoClones(): [TestRepo, TestRepo] {
  const bare = join(tempDir('splintercat-claims-'), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', bare], { env: { ...process.env, ...testGitEnv } });
  return [0, 1].map(() => {
    const repo = TestRepo.create();
    repo.sh('remote', 'add', 'origin', bare);
    return repo;
  }) as [TestRepo, TestRepo];
}

/** A clock the test moves. */
function clockAt(iso: string): Clock & { set(iso: string): void } {
  let now = new Date(iso);
  return { now: () => now, set: (t) => (now = new Date(t)) };
}

function claims(repo: TestRepo, machine: string, clock: Clock): Claims {
  return new Claims(repo.git, 'up', {
    remote: 'origin',
    machine,
    person: { name: machine, email: `${machine}@example.com` },
    leaseSeconds: 60,
    clock,
  });
}

describe('claims on the conflicts of a shared run', () => {
  it('two machines taking one conflict at once: exactly one holds it, and the other is told who', async () => {
    const [a, b] = twoClones();
    const clock = clockAt('2026-01-01T00:00:00Z');
    const [ca, cb] = [claims(a, 'alice', clock), claims(b, 'bob', clock)];
    const outcomes = await Promise.all([ca.take('1-2', null), cb.take('1-2', null)]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    const lost = outcomes.find((o) => !o.ok);
    expect(lost).toMatchObject({ ok: false, reason: 'held' });
    const winner = outcomes.find((o) => o.ok);
    expect((lost as { holder: { machine: string } }).holder.machine).toBe(
      (winner as { claim: { machine: string } }).claim.machine,
    );
    expect([...((await ca.list()) ?? new Map()).keys()]).toEqual(['1-2']);
  });

  it('renewed while held; taken over only after the lease, naming the old claim; a stale release changes nothing', async () => {
    const [a, b] = twoClones();
    const clock = clockAt('2026-01-01T00:00:00Z');
    const [ca, cb] = [claims(a, 'alice', clock), claims(b, 'bob', clock)];
    const taken = await ca.take('2-1');
    if (!taken.ok) throw new Error('alice could not take 2-1');
    clock.set('2026-01-01T00:00:50Z');
    const renewed = await ca.renew(taken.claim);
    expect(renewed?.expires).toBe('2026-01-01T00:01:50.000Z');
    clock.set('2026-01-01T00:01:00Z');
    expect(await cb.take('2-1')).toMatchObject({ ok: false, reason: 'held' });
    clock.set('2026-01-01T00:02:00Z');
    const over = await cb.take('2-1');
    expect(over).toMatchObject({ ok: true, tookOver: { machine: 'alice' } });
    // Alice's process comes back with its old claim: neither renewing nor releasing it touches Bob's.
    expect(await ca.renew(renewed!)).toBeNull();
    expect(await ca.release(renewed!)).toBe(false);
    expect((await cb.list())?.get('2-1')?.machine).toBe('bob');
  });
});
