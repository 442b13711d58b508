import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { chainRepo, valuesFile } from '../fixtures/workflow/chain-repo.js';
import type { TestRepo } from '../helpers/git-repo.js';

/** A merge stopped for the person on its one conflict, then settled in its worktree (not yet continued). */
async function settledHandoff(): Promise<{ repo: TestRepo; fork: string }> {
  const repo = chainRepo(
    1,
    () => 'fork',
    () => 'upstream',
  );
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    ['target:', '  branch: main', 'imerge:', '  name: up', ''].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
  const fork = repo.sh('rev-parse', 'main');
  const first = await runCli(['merge', 'upstream'], repo.dir);
  expect(first.code).toBe(3);
  const file = /^\s+(\/\S+vals\.txt)$/m.exec(first.stderr)?.[1] as string;
  writeFileSync(file, valuesFile(['both']));
  return { repo, fork };
}

describe('finalize never moves the branch under a checkout made dirty during the run', () => {
  it('a tracked file edited in the main checkout: stop (exit 3) naming it and the way on; branch, index and edit untouched; stash, continue, pop', async () => {
    const { repo, fork } = await settledHandoff();
    const edit = `${valuesFile(['fork'])}# my local note\n`;
    writeFileSync(join(repo.dir, 'vals.txt'), edit);

    const stopped = await runCli(['continue'], repo.dir);
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toMatch(
      /main is checked out in .* with uncommitted changes \(vals\.txt\); the branch was not moved/,
    );
    expect(stopped.stderr).toMatch(/^ {2}git stash {3}# or commit them on another branch$/m);
    expect(stopped.stderr).toMatch(/splintercat continue/);
    expect(stopped.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(repo.sh('rev-parse', 'main')).toBe(fork);
    expect(repo.sh('diff', '--cached', '--name-only')).toBe('');
    expect(readFileSync(join(repo.dir, 'vals.txt'), 'utf8')).toBe(edit);
    // The merge result is kept: status says what is waiting, and a second continue still refuses.
    expect(JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout)).toMatchObject({ status: 'needs_person' });
    expect((await runCli(['continue'], repo.dir)).code).toBe(3);
    expect(repo.sh('rev-parse', 'main')).toBe(fork);

    repo.sh('stash');
    const done = await runCli(['continue'], repo.dir);
    expect(done.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(done.code).toBe(0);
    const merged = repo.sh('rev-parse', 'main');
    expect(repo.sh('rev-list', '--parents', '-n', '1', merged).split(' ').slice(1)).toEqual([
      fork,
      repo.sh('rev-parse', 'upstream'),
    ]);
    expect(repo.sh('status', '--porcelain', '--untracked-files=no')).toBe('');
    // The person's note comes back on top of the merge (a conflict with it is theirs to settle, nothing is lost).
    repo.sh('stash', 'pop');
    expect(readFileSync(join(repo.dir, 'vals.txt'), 'utf8')).toContain('# my local note');
  });

  it('an untracked file in the way of the merge also stops it, and is left as it was', async () => {
    const { repo, fork } = await settledHandoff();
    // Upstream adds nothing new here, so make the merged tree add a file the checkout has untracked.
    const worktree = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      handoff: { conflicts: Array<{ worktree: string }> };
    };
    const wt = worktree.handoff.conflicts[0]?.worktree as string;
    writeFileSync(join(wt, 'added.txt'), 'from the merge\n');
    writeFileSync(join(repo.dir, 'added.txt'), 'mine, untracked\n');
    const stopped = await runCli(['continue'], repo.dir);
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toMatch(/untracked files the merge would overwrite \(added\.txt\)/);
    expect(stopped.stderr).toMatch(/git stash push --include-untracked -- added\.txt/);
    expect(repo.sh('rev-parse', 'main')).toBe(fork);
    expect(readFileSync(join(repo.dir, 'added.txt'), 'utf8')).toBe('mine, untracked\n');
  });
});
