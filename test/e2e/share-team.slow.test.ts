import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../fixtures/resolve/cli.js';
import { crossRepo } from '../fixtures/workflow/chain-repo.js';
import { TestRepo } from '../helpers/git-repo.js';

/** The configuration every clone has (committed in a real fork; written beside each clone here). */
function configure(dir: string, extra: string[] = []): void {
  writeFileSync(
    join(dir, 'splintercat.yaml'),
    [
      'target:',
      '  branch: main',
      'check:',
      '  commands:',
      '    build: node check.mjs',
      '  workflow: [build]',
      'imerge:',
      '  name: up',
      'merge:',
      '  resolver: manual',
      ...extra,
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
}

/** A fork with two independent conflicts on one frontier (cells 1-2 and 2-1), pushed to a bare remote. */
function team(): { bare: string; clone: (person: string) => TestRepo } {
  const origin = crossRepo(
    2,
    (k) => `F${k}`,
    (k) => `U${k}`,
  );
  const root = mkdtempSync(join(tmpdir(), 'splintercat-team-'));
  const bare = join(root, 'shared.git');
  execFileSync('git', ['clone', '-q', '--bare', origin.dir, bare]);
  const clone = (person: string): TestRepo => {
    const dir = join(root, person, 'repo');
    execFileSync('git', ['clone', '-q', bare, dir]);
    const repo = new TestRepo(dir);
    repo.sh('config', 'user.name', person);
    repo.sh('config', 'user.email', `${person.toLowerCase()}@example.com`);
    repo.sh('branch', '-q', 'upstream', 'origin/upstream');
    configure(dir);
    return repo;
  };
  return { bare, clone };
}

/** The one conflict handed to this person: its worktree's vals.txt. */
function handed(run: CliRun): { conflict: string; file: string } {
  const cd = /^ *cd (\S+)\s+# conflict (\d+-\d+):/m.exec(run.stderr);
  expect(cd, run.stderr).not.toBeNull();
  expect(run.stderr.match(/^ *cd /gm)).toHaveLength(1);
  return { conflict: cd![2]!, file: join(cd![1]!, 'vals.txt') };
}

/** A person settles the value conflict: the marker block becomes `vK = R<conflict>`. */
function settle(file: string, conflict: string): void {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(
    /<<<<<<<[^\n]*\n(v\d+) = [\s\S]*?>>>>>>>[^\n]*\n/,
    (_all, name: string) => `${name} = R${conflict}\n`,
  );
  expect(next).not.toBe(text);
  writeFileSync(file, next);
}

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
    const b2 = await runCli(['continue', '--name', 'up'], bob.dir);
    expect(b2.code, b2.stderr).toBe(0);
    expect(b2.stdout).toMatch(/^Merged upstream into main/);

    // The same merge on one machine, one person settling both conflicts the same way.
    const solo = clone('Solo');
    configure(solo.dir);
    const s1 = await runCli(['merge', 'upstream'], solo.dir);
    expect(s1.code, s1.stderr).toBe(3);
    for (const m of s1.stderr.matchAll(/^ *cd (\S+)\s+# conflict (\d+-\d+):/gm)) settle(join(m[1]!, 'vals.txt'), m[2]!);
    const s2 = await runCli(['continue'], solo.dir);
    expect(s2.code, s2.stderr).toBe(0);
    expect(bob.sh('rev-parse', 'main^{tree}')).toBe(solo.sh('rev-parse', 'main^{tree}'));

    for (const repo of [alice, bob]) {
      const text = (await runCli(['status'], repo.dir)).stdout;
      expect(text).toMatch(new RegExp(`${aliceConflict.conflict} resolved by Alice <alice@example.com>`));
      expect(text).toMatch(new RegExp(`${bobConflict.conflict} resolved by Bob <bob@example.com>`));
      expect(text).toMatch(/nobody holds a conflict/);
    }
  });
});
