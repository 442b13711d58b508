import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { chainRepo, valuesFile, writeChainConfig } from '../fixtures/workflow/chain-repo.js';

function configure(repo: TestRepo, extra: string[] = []): void {
  writeChainConfig(repo.dir, extra);
}

describe('splintercat merge / status / continue / abort (CLI, offline)', () => {
  it('merges with the rules alone, prints the result, leaves one merge commit and a clean tree; status shows it done', async () => {
    const repo = chainRepo(
      3,
      () => '1  ',
      () => '1',
    );
    configure(repo);
    const fork = repo.sh('rev-parse', 'main');
    const run = await runCli(['merge', 'upstream', '--strategy', 'optimistic'], repo.dir);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Merged upstream into main: [0-9a-f]{40}\n {2}conflicts: 3 \(hunks by rung: rule 3\)/);
    const head = repo.sh('rev-parse', 'main');
    expect(repo.sh('rev-list', '--parents', '-n', '1', head).split(' ').slice(1)).toEqual([
      fork,
      repo.sh('rev-parse', 'upstream'),
    ]);
    // main is checked out: its files and index follow the branch, as after a fast-forward.
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['1  ', '1  ', '1  ']).trimEnd());
    expect(readFileSync(join(repo.dir, 'vals.txt'), 'utf8')).toBe(valuesFile(['1  ', '1  ', '1  ']));
    expect(repo.sh('status', '--porcelain', '--untracked-files=no')).toBe('');
    const status = await runCli(['status', '--json'], repo.dir);
    expect(JSON.parse(status.stdout)).toMatchObject({
      name: 'up',
      status: 'done',
      finalCommit: head,
      conflicts: { total: 3, hunksByRung: { rule: 3 } },
    });
  });

  it('stops for the person with exit 3 and exact instructions; continue after the edit finishes the merge', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    const first = await runCli(['merge', 'upstream'], repo.dir);
    expect(first.code).toBe(3);
    expect(first.stderr).toMatch(/needs the person/);
    const file = /^\s+(\/\S+vals\.txt)$/m.exec(first.stderr)?.[1] as string;
    expect(readFileSync(file, 'utf8')).toMatch(/^<<<<<<< /m);
    expect(first.stderr).toMatch(/splintercat continue/);
    const status = await runCli(['status'], repo.dir);
    expect(status.stdout).toMatch(/Merge 'up': needs_person/);
    writeFileSync(file, valuesFile(['both']));
    const second = await runCli(['continue'], repo.dir);
    expect(second.code).toBe(0);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['both']).trimEnd());
    // The hand-off was taken: neither the state nor status asks anything of anyone any more.
    expect(
      JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8')).handoff,
    ).toBeNull();
    expect(JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout)).toMatchObject({
      status: 'done',
      handoff: null,
    });
  });

  it('the hand-off as a script reads it: status --json names each file, its kind and hunks; the cd line names the worktree; then the one command', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    const first = await runCli(['merge', 'upstream'], repo.dir);
    expect(first.code).toBe(3);
    expect(first.stderr).toMatch(/vals\.txt \[content, 1 hunk\(s\)\]: edit vals\.txt: 1 conflict hunk\(s\)/);
    const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      handoff: {
        commands: string[];
        conflicts: Array<{
          conflict: string;
          worktree: string;
          files: Array<{ path: string; kind: string; hunks: number }>;
        }>;
      };
    };
    const [c] = status.handoff.conflicts;
    expect(c).toMatchObject({ conflict: '1-1', files: [{ path: 'vals.txt', kind: 'content', hunks: 1 }] });
    const cd = /^cd (\S+)\s{3}# /.exec(status.handoff.commands[0] as string)?.[1];
    expect(cd).toBe(c?.worktree);
    writeFileSync(join(cd as string, 'vals.txt'), valuesFile(['both']));
    const next = status.handoff.commands.at(-1) as string;
    expect(next).toBe('splintercat continue');
    // Run from the main checkout: running it from the worktree is the run configuration's part of issue 11.
    const second = await runCli(next.split(' ').slice(1), repo.dir);
    expect(second.code).toBe(0);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['both']).trimEnd());
  });

  it("a person's resolution failing a check goes back to them (exit 3, whatever max_recoveries says): the failure, their file in place, accept or amend; continue resumes once fixed", async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo, ['merge:', '  max_recoveries: 0']);
    expect((await runCli(['merge', 'upstream'], repo.dir)).code).toBe(3);
    const handed = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      handoff: { conflicts: Array<{ worktree: string }> };
    };
    const worktree = handed.handoff.conflicts[0]?.worktree as string;
    writeFileSync(join(worktree, 'vals.txt'), valuesFile(['BAD']));
    const failed = await runCli(['continue'], repo.dir);
    expect(failed.code).toBe(3);
    // The hand-off names the cell, its worktree, the failure, and both ways on.
    expect(failed.stderr).toMatch(/check 'build' failed/);
    expect(failed.stderr).toContain(`cd ${worktree}`);
    expect(failed.stderr).toMatch(/splintercat continue --accept-failure/);
    expect(readFileSync(join(worktree, 'vals.txt'), 'utf8')).toBe(valuesFile(['BAD']));
    const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      handoff: { accept?: string; conflicts: Array<{ failure: { check: string } | null }> };
    };
    expect(status.handoff.accept).toBe('splintercat continue --accept-failure');
    expect(status.handoff.conflicts[0]?.failure?.check).toBe('build');
    writeFileSync(join(worktree, 'vals.txt'), valuesFile(['fixed']));
    const resumed = await runCli(['continue'], repo.dir);
    expect(resumed.code).toBe(0);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['fixed']).trimEnd());
  });

  it('continue --accept-failure takes the resolution as it is and never blames that failure again; with nothing to accept it says so (exit 2)', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    expect((await runCli(['merge', 'upstream'], repo.dir)).code).toBe(3);
    const nothing = await runCli(['continue', '--accept-failure'], repo.dir);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/no failed check to accept/);
    const handed = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      handoff: { conflicts: Array<{ worktree: string }> };
    };
    const worktree = handed.handoff.conflicts[0]?.worktree as string;
    writeFileSync(join(worktree, 'vals.txt'), valuesFile(['BAD']));
    expect((await runCli(['continue'], repo.dir)).code).toBe(3);
    const accepted = await runCli(['continue', '--accept-failure'], repo.dir);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['BAD']).trimEnd());
    const md = await runCli(['report', '--md', join(repo.dir, '.git', 'r.md')], repo.dir);
    expect(md.code).toBe(0);
    expect(readFileSync(join(repo.dir, '.git', 'r.md'), 'utf8')).toMatch(
      /Failures accepted by a person[^]*build at 1-1/,
    );
    const html = join(repo.dir, '.git', 'r.html');
    expect((await runCli(['report', '--html', html], repo.dir)).code).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(
      /<b>Failures accepted by a person<\/b>[^]*build at <a href="#conflict-1-1">1-1<\/a>/,
    );
    // The journal keeps the acceptance: a state rebuilt from it (both state files gone) still has it.
    const runDir = join(repo.dir, '.git', 'splintercat', 'up');
    rmSync(join(runDir, 'state.json'));
    rmSync(join(runDir, 'state.json.bak'), { force: true });
    const rebuilt = await runCli(['doctor', '--rebuild'], repo.dir);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(`${rebuilt.stdout}${rebuilt.stderr}`).toContain('1 failure(s) a person accepted, from the journal');
    const after = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      accepted: Array<{ check: string; conflicts: string[] }>;
    };
    expect(after.accepted).toEqual([expect.objectContaining({ check: 'build', conflicts: ['1-1'] })]);
  });

  it('refuses a dirty working tree (exit 2, lists the files) and a check that is not valid shell before starting', async () => {
    const repo = chainRepo(
      1,
      () => 'a',
      () => 'b',
    );
    configure(repo);
    writeFileSync(join(repo.dir, 'vals.txt'), 'local edit\n');
    const dirty = await runCli(['merge', 'upstream'], repo.dir);
    expect(dirty.code).toBe(2);
    expect(dirty.stderr).toMatch(/uncommitted changes[^]*vals\.txt/);
    repo.sh('checkout', '--', 'vals.txt');
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      ['check:', '  commands:', '    build: "no-such-compiler-xyz all &&"', '  workflow: [build]', ''].join('\n'),
    );
    const missing = await runCli(['merge', 'upstream'], repo.dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/build: shell syntax error in "no-such-compiler-xyz all &&"/);
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
  });

  it('abort removes refs, worktrees and state, and leaves the branch where it was', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    const fork = repo.sh('rev-parse', 'main');
    expect((await runCli(['merge', 'upstream'], repo.dir)).code).toBe(3);
    const abort = await runCli(['abort'], repo.dir);
    expect(abort.code).toBe(0);
    expect(abort.stdout).toMatch(/Aborted 'up'/);
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(1);
    expect(repo.sh('rev-parse', 'main')).toBe(fork);
    expect(repo.sh('status', '--porcelain', '--untracked-files=no')).toBe('');
  });
});
