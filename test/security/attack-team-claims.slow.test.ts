import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli, type CliRun } from '../fixtures/resolve/cli.js';
import { team as teamOf, type Team } from '../fixtures/workflow/team.js';

/**
 * Claims on a shared run are exclusive across a publication and an outage: a conflict another
 * clone resolved and published is never handed to a person again (even when this clone read the
 * records before their trees), a conflict another clone held when the claims were last read is
 * not handed over while the remote cannot be read, a remote that answers is never said to be
 * unreachable, and `status` names everyone who resolved.
 */

/** The team fixture, its directory removed once the test is done. */
function team(): Team {
  const made = teamOf();
  onTestFinished(() => rmSync(made.root, { recursive: true, force: true }));
  return made;
}

/** Every conflict handed to a person in this output: its id and its worktree's vals.txt. */
function handedAll(run: CliRun): Array<{ conflict: string; file: string }> {
  return [...run.stderr.matchAll(/^ *cd (\S+)\s+# conflict (\d+-\d+):/gm)].map((m) => ({
    conflict: m[2]!,
    file: join(m[1]!, 'vals.txt'),
  }));
}

function handedOne(run: CliRun): { conflict: string; file: string } {
  const all = handedAll(run);
  expect(all, run.stderr).toHaveLength(1);
  return all[0]!;
}

/** A person settles the value conflict: the marker hunk becomes `vK = R<conflict>`. */
function settle(file: string, conflict: string): void {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(
    /<<<<<<<[^\n]*\n(v\d+) = [\s\S]*?>>>>>>>[^\n]*\n/,
    (_all, name: string) => `${name} = R${conflict}\n`,
  );
  expect(next).not.toBe(text);
  writeFileSync(file, next);
}

const other = (conflict: string): string => (conflict === '1-2' ? '2-1' : '1-2');

describe('claims are exclusive across a publication and an outage (two clones, one bare remote)', () => {
  it("a conflict Alice published is never claimed by or handed to Bob, even when Bob's clone read the records before their trees; status names both", async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');
    const a1 = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);
    const mine = handedOne(a1);
    expect((await runCli(['join', 'origin', 'up'], bob.dir)).code).toBe(0);
    const b1 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b1.code, b1.stderr).toBe(3);
    const his = handedOne(b1);
    expect(his.conflict).toBe(other(mine.conflict));

    settle(mine.file, mine.conflict);
    const a2 = await runCli(['continue', '--name', 'up'], alice.dir);
    expect(a2.code, a2.stderr).toBe(3);
    expect(a2.stderr).toMatch(new RegExp(`${his.conflict} by Bob`));
    // Bob looks at the run: the records come in, the objects they name do not.
    expect((await runCli(['status'], bob.dir)).code).toBe(0);

    settle(his.file, his.conflict);
    const b2 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b2.stderr).not.toMatch(new RegExp(`claimed ${mine.conflict}\\b`));
    expect(handedAll(b2).map((h) => h.conflict)).not.toContain(mine.conflict);
    expect(b2.code, b2.stderr).toBe(0);
    expect(b2.stderr).toMatch(new RegExp(`took ${mine.conflict} as Alice <alice@example.com>`));
    expect(bob.sh('show', 'main:vals.txt')).toMatch(new RegExp(`R${mine.conflict}$`, 'm'));

    const status = (await runCli(['status'], bob.dir)).stdout;
    expect(status).toMatch(new RegExp(`${mine.conflict} resolved by Alice <alice@example.com>`));
    expect(status).toMatch(new RegExp(`${his.conflict} resolved by Bob <bob@example.com>`));
  });

  it('a claim pushed onto a conflict already resolved: status does not show it held, the next publication removes it', async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');
    const mallory = clone('Mallory');
    const a1 = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    const mine = handedOne(a1);
    expect((await runCli(['join', 'origin', 'up'], bob.dir)).code).toBe(0);
    const his = handedOne(await runCli(['continue', '--name', 'up'], bob.dir));
    settle(mine.file, mine.conflict);
    expect((await runCli(['continue', '--name', 'up'], alice.dir)).code).toBe(3);

    // Mallory claims Alice's resolved conflict for a year, with plumbing.
    const claim = {
      at: new Date().toISOString(),
      conflict: mine.conflict,
      email: 'm@example.com',
      expires: new Date(Date.now() + 365 * 86400_000).toISOString(),
      machine: 'mallory',
      name: 'Mallory',
    };
    writeFileSync(join(mallory.dir, '..', 'claim.json'), `${JSON.stringify(claim)}\n`);
    const oid = mallory.sh('hash-object', '-w', join(mallory.dir, '..', 'claim.json'));
    mallory.sh('push', '-q', '--force', 'origin', `${oid}:refs/splintercat/up/claims/${mine.conflict}`);
    const status = await runCli(['status', '--name', 'up'], bob.dir);
    expect(status.stdout).toMatch(new RegExp(`${mine.conflict} resolved by Alice`));
    expect(status.stdout).not.toMatch(new RegExp(`${mine.conflict} held by Mallory`));

    settle(his.file, his.conflict);
    const b2 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b2.code, b2.stderr).toBe(0);
    expect(bob.sh('ls-remote', 'origin', 'refs/splintercat/up/claims/*')).toBe('');
  });

  it('a conflict taken over after its lease and then published by its first holder: the second person is told their edits were not used, and where they are', async () => {
    const made = teamOf(['sync:', '  lease: 0.001']);
    onTestFinished(() => rmSync(made.root, { recursive: true, force: true }));
    const alice = made.clone('Alice');
    const bob = made.clone('Bob');
    const mine = handedOne(await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir));
    expect((await runCli(['join', 'origin', 'up'], bob.dir)).code).toBe(0);
    const b1 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b1.stderr).toMatch(new RegExp(`took ${mine.conflict} over from Alice`));
    const his = handedOne(b1);
    expect(his.conflict).toBe(mine.conflict);

    settle(mine.file, mine.conflict);
    await runCli(['continue', '--name', 'up'], alice.dir);
    settle(his.file, his.conflict);
    writeFileSync(his.file, readFileSync(his.file, 'utf8').replace(`R${his.conflict}`, `Bob-${his.conflict}`));
    const b2 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b2.stderr).toMatch(new RegExp(`took ${mine.conflict} as Alice`));
    expect(b2.stderr).toContain(
      `${mine.conflict} was published resolved by another clone before your edits were taken: they are not used, and are still in ${dirname(his.file)}`,
    );
    expect(readFileSync(his.file, 'utf8')).toContain(`Bob-${his.conflict}`);
  });

  it('the remote gone for a while: Bob is not handed the conflict Alice held when he last read the claims', async () => {
    const { bare, clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');
    const a1 = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);
    const hers = handedOne(a1);
    expect((await runCli(['join', 'origin', 'up'], bob.dir)).code).toBe(0);
    const b1 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b1.code, b1.stderr).toBe(3);
    const his = handedOne(b1);
    settle(his.file, his.conflict);

    renameSync(bare, `${bare}.away`);
    const offline = await runCli(['continue', '--name', 'up'], bob.dir);
    renameSync(`${bare}.away`, bare);
    // His own resolution is taken and checked here; hers stays hers.
    expect(handedAll(offline).map((h) => h.conflict)).not.toContain(hers.conflict);
    expect(offline.code, offline.stderr).toBe(3);
    expect(offline.stderr).toMatch(new RegExp(`${hers.conflict} by Alice <alice@example.com>`));
    expect(offline.stderr.match(/\[share\] origin cannot be reached/g)).toHaveLength(1);

    // Back online: his resolution goes out, hers is still hers.
    const back = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(back.code, back.stderr).toBe(3);
    expect(back.stderr).not.toMatch(/cannot be reached/);
    expect(handedAll(back)).toEqual([]);
    expect(back.stderr).toMatch(new RegExp(`${hers.conflict} by Alice`));
  });

  it('a remote that answers but refuses the push: never said to be unreachable', async () => {
    const { bare, clone } = team();
    const alice = clone('Alice');
    const a1 = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);
    const mine = handedOne(a1);
    settle(mine.file, mine.conflict);
    // The remote's own rule: no new records for now (claims still go through).
    const hook = join(bare, 'hooks', 'pre-receive');
    writeFileSync(
      hook,
      '#!/bin/sh\nwhile read old new ref; do [ "$ref" = refs/splintercat/up/records ] && { echo "records frozen" >&2; exit 1; }; done\nexit 0\n',
    );
    chmodSync(hook, 0o755);
    const a2 = await runCli(['continue', '--name', 'up'], alice.dir);
    expect(a2.stderr).not.toMatch(/cannot be reached/);
    expect(a2.stderr).toMatch(/\[share\] origin changed meanwhile or refused the push: retrying at the next step/);
    expect(a2.code, a2.stderr).toBe(3);
    expect(handedOne(a2).conflict).toBe(other(mine.conflict));
  });
});
