import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliShellCommand, runCli } from '../fixtures/resolve/cli.js';
import { configureTeamClone, handed, settle, team } from '../fixtures/workflow/team.js';
import { startLlmServer } from '../helpers/llm-server.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';

describe('one merge, two clones sharing a bare remote (CLI)', () => {
  it('two people take different conflicts of one frontier at once; the merge equals a single-machine one; status says who resolved what', async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');

    const a1 = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);
    const aliceConflict = handed(a1);

    const joined = await runCli(['join', 'origin', 'up'], bob.dir);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout).toMatch(/Next: splintercat continue --name up/);
    const b1 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b1.code, b1.stderr).toBe(3);
    const bobConflict = handed(b1);
    expect(bobConflict.conflict).not.toBe(aliceConflict.conflict);

    // Both hold a claim now, each on their own conflict.
    const held = JSON.parse((await runCli(['status', '--json'], alice.dir)).stdout) as {
      share: { holders: Array<{ conflict: string; name: string }> };
    };
    expect(held.share.holders.map((h) => [h.conflict, h.name]).sort()).toEqual(
      [
        [aliceConflict.conflict, 'Alice'],
        [bobConflict.conflict, 'Bob'],
      ].sort(),
    );

    settle(aliceConflict.file, aliceConflict.conflict);
    settle(bobConflict.file, bobConflict.conflict);
    const a2 = await runCli(['continue', '--name', 'up'], alice.dir);
    // Alice's resolution is checked and published; the other conflict is Bob's, so Alice's run waits.
    expect(a2.code, a2.stderr).toBe(3);
    expect(a2.stderr).toMatch(new RegExp(`${bobConflict.conflict} by Bob`));
    // Mid-run, the remote holds the engine's state and manual cells, not the cells merged by
    // themselves, and git-imerge reads the merge from there as its own.
    const remoteEngine = alice.sh('ls-remote', 'origin', 'refs/imerge/up/*');
    expect(remoteEngine).toMatch(/refs\/imerge\/up\/state$/m);
    expect(remoteEngine).toMatch(new RegExp(`refs/imerge/up/manual/${aliceConflict.conflict}$`, 'm'));
    expect(remoteEngine).not.toMatch(/\/auto\//);
    const reader = clone('Reader');
    reader.sh('fetch', '-q', 'origin', '+refs/imerge/up/*:refs/imerge/up/*');
    const diagram = execFileSync('git-imerge', ['diagram', '--name', 'up'], { cwd: reader.dir, encoding: 'utf8' });
    expect(diagram).toMatch(/\*/);
    const b2 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b2.code, b2.stderr).toBe(0);
    expect(b2.stdout).toMatch(/^Merged upstream into main/);

    // The same merge on one machine, one person settling both conflicts the same way.
    const solo = clone('Solo');
    configureTeamClone(solo.dir);
    const s1 = await runCli(['merge', 'upstream'], solo.dir);
    expect(s1.code, s1.stderr).toBe(3);
    for (const m of s1.stderr.matchAll(/^ *cd (\S+)\s+# conflict (\d+-\d+):/gm)) settle(join(m[1]!, 'vals.txt'), m[2]!);
    const s2 = await runCli(['continue'], solo.dir);
    expect(s2.code, s2.stderr).toBe(0);
    expect(bob.sh('rev-parse', 'main^{tree}')).toBe(solo.sh('rev-parse', 'main^{tree}'));
    // Alice's clone takes Bob's resolution as published (the engine's refs are gone with his finished merge): same tree.
    const a3 = await runCli(['continue', '--name', 'up'], alice.dir);
    expect(a3.code, a3.stderr).toBe(0);
    expect(a3.stderr).toMatch(new RegExp(`took ${bobConflict.conflict} as Bob <bob@example.com>`));
    expect(alice.sh('rev-parse', 'main^{tree}')).toBe(bob.sh('rev-parse', 'main^{tree}'));
    // What Bob's resolution dropped is audited in Alice's clone too, from her own objects.
    const cellDrops = (repo: TestRepo): unknown => {
      const state = JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8')) as {
        conflicts: Array<{ id: string; files: Array<{ path: string; drops?: unknown }> }>;
      };
      return state.conflicts.find((c) => c.id === bobConflict.conflict)?.files.map((f) => [f.path, f.drops]);
    };
    expect(cellDrops(alice)).toEqual([['vals.txt', expect.objectContaining({ ours: expect.anything() })]]);
    expect(cellDrops(alice)).toEqual(cellDrops(bob));

    for (const repo of [alice, bob]) {
      const text = (await runCli(['status'], repo.dir)).stdout;
      expect(text).toMatch(new RegExp(`${aliceConflict.conflict} resolved by Alice <alice@example.com>`));
      expect(text).toMatch(new RegExp(`${bobConflict.conflict} resolved by Bob <bob@example.com>`));
      expect(text).toMatch(/nobody holds a conflict/);
    }
  });

  it('kill -9 of a clone holding a claim: once its lease runs out the other clone takes the conflict and finishes', async () => {
    const server = await startLlmServer({ respond: () => ({ kind: 'hang' }) });
    // A lease of a millisecond: run out by the time the other clone looks (no waiting for it).
    const { bare, clone } = team([
      'sync:',
      '  lease: 0.001',
      'llm:',
      '  provider: openai-compatible',
      `  base_url: ${server.baseURL}`,
      '  resolver_model: value-model',
    ]);
    const alice = clone('Alice');
    const bob = clone('Bob');
    const child = spawn('/bin/sh', ['-c', `exec ${cliShellCommand} merge upstream --remote origin --resolver llm`], {
      cwd: alice.dir,
      env: { ...process.env, ...testGitEnv },
      stdio: 'ignore',
    });
    const exited = new Promise<string | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    // Alice's clone claimed 1-2 and asks the model about it, which never answers: it is killed there.
    await server.waitForRequests(1);
    const remote = new TestRepo(bare);
    expect(remote.sh('for-each-ref', '--format=%(refname)', 'refs/splintercat/up/claims/')).toBe(
      'refs/splintercat/up/claims/1-2',
    );
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    expect((await runCli(['join', 'origin', 'up'], bob.dir)).code).toBe(0);
    const first = await runCli(['continue', '--name', 'up', '--set', 'merge.resolver=manual'], bob.dir);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(/took 1-2 over from Alice <alice@example.com>/);
    let next = handed(first);
    expect(next.conflict).toBe('1-2');
    settle(next.file, next.conflict);
    const second = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(second.code, second.stderr).toBe(3);
    next = handed(second);
    expect(next.conflict).toBe('2-1');
    settle(next.file, next.conflict);
    const last = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(last.code, last.stderr).toBe(0);
    expect(bob.sh('show', 'main:vals.txt')).toMatch(/^v1 = R1-2$/m);
    expect(bob.sh('show', 'main:vals.txt')).toMatch(/^v2 = R2-1$/m);
  });

  it('a remote unreachable for a while: the work goes on here, and is published once it is back', async () => {
    const { bare, clone } = team();
    const alice = clone('Alice');
    const first = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(first.code, first.stderr).toBe(3);
    const mine = handed(first);
    settle(mine.file, mine.conflict);
    renameSync(bare, `${bare}.away`);
    const offline = await runCli(['continue', '--name', 'up'], alice.dir);
    // The resolution is recorded and checked here; the next conflict is handed over without a claim.
    expect(offline.code, offline.stderr).toBe(3);
    expect(offline.stderr.match(/\[share\] origin cannot be reached/g)).toHaveLength(1);
    expect(handed(offline).conflict).not.toBe(mine.conflict);
    renameSync(`${bare}.away`, bare);
    const shared = await runCli(['share', 'origin', '--name', 'up'], alice.dir);
    expect(shared.code, shared.stderr).toBe(0);
    const bob = clone('Bob');
    expect((await runCli(['join', 'origin', 'up'], bob.dir)).code).toBe(0);
    const status = JSON.parse((await runCli(['status', '--json'], bob.dir)).stdout) as {
      share: { resolved: Array<{ conflict: string; person: string }> };
    };
    expect(status.share.resolved).toEqual([
      expect.objectContaining({ conflict: mine.conflict, person: 'Alice <alice@example.com>' }),
    ]);
  });

  it('a remote or a run that is not there: a clear error and nothing started', async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const typo = await runCli(['merge', 'upstream', '--remote', 'orign'], alice.dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/The git remote 'orign' cannot be reached/);
    expect(typo.stderr).toMatch(/remotes: origin/);
    expect(typo.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(alice.sh('for-each-ref', 'refs/imerge')).toBe('');
    const missing = await runCli(['join', 'origin', 'nope'], alice.dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No merge named 'nope' is shared on 'origin'/);
    expect(missing.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
