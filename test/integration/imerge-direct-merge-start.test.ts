import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startMergeDirectly } from '../../src/imerge/direct-merge-start.js';
import { TestRepo, tempDir, testGitEnv } from '../helpers/git-repo.js';

const MESSAGE = "imerge 't': manual merge 1-1";

/**
 * A fork at `fork` (HEAD), the scratch branch's commit `above` one commit behind it, and `left`
 * on a side line: what `presentConflict` merges, with conflicts of every kind the direct path
 * takes (text, add/add, binary) beside clean changes of every kind.
 */
function forkRepo(extra: { above?: Record<string, string | null>; left?: Record<string, string | null> } = {}): {
  repo: TestRepo;
  above: string;
  left: string;
} {
  const repo = TestRepo.create();
  repo.commit('base', {
    'text.txt': 'one\ntwo\nthree\n',
    'bin.dat': '\0\x01\x02',
    'clean.txt': 'clean\n',
    'gone.txt': 'gone\n',
    'run.sh': '#!/bin/sh\n',
    'dir sub/é ü.txt': 'a\nb\n',
    'checkout-only.txt': 'v1\n',
  });
  repo.branch('side');
  const above = repo.commit('fork 1', {
    'text.txt': 'one\nTWO (fork)\nthree\n',
    'bin.dat': '\0\x01\x03',
    'added.txt': 'fork adds\n',
    'dir sub/é ü.txt': 'a\nfork\n',
    ...extra.above,
  });
  repo.commit('fork 2', { 'checkout-only.txt': 'v2\n', 'fork-2-only.txt': 'x\n' });
  repo.branch('fork');
  repo.checkout('side');
  repo.write({ 'clean.txt': 'clean, changed by the side\n', 'gone.txt': null, 'side-new.txt': 'new\n' });
  chmodSync(join(repo.dir, 'run.sh'), 0o755);
  const left = repo.commit('side 1', {
    'text.txt': 'one\nTWO (side)\nthree\n',
    'bin.dat': '\0\x01\x04',
    'added.txt': 'side adds\n',
    'dir sub/é ü.txt': 'a\nside\n',
    ...extra.left,
  });
  repo.checkout('fork');
  repo.sh('update-ref', 'refs/heads/imerge/t', above);
  return { repo, above, left };
}

/** A copy of the repository, to start the merge the other way. */
function copyOf(repo: TestRepo): TestRepo {
  const dir = join(tempDir(), 'repo');
  cpSync(repo.dir, dir, { recursive: true });
  const copy = new TestRepo(dir);
  // Copied files have new times: refresh the index, as the clean-tree check before a merge is started does.
  copy.sh('update-index', '-q', '--refresh');
  return copy;
}

/** What the porcelain does: git-imerge's checkout and merge at a conflict. */
function porcelain(repo: TestRepo, left: string): { stdout: string; stderr: string } {
  const co = run(repo, ['checkout', 'imerge/t']);
  const merge = run(repo, ['merge', '--no-commit', '-m', MESSAGE, left]);
  expect(merge.status).toBe(1);
  return { stdout: co.stdout + merge.stdout, stderr: co.stderr + merge.stderr };
}

/** Run git as a person would, keeping both streams whole. */
function run(repo: TestRepo, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('git', args, {
    cwd: repo.dir,
    env: { ...process.env, ...testGitEnv, LC_ALL: 'C' },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Everything a person or git could see of the started merge. */
function snapshot(repo: TestRepo): Record<string, unknown> {
  const gitFile = (name: string): string | null => {
    try {
      return readFileSync(join(repo.dir, '.git', name), 'utf8');
    } catch {
      return null;
    }
  };
  const files: Record<string, string> = {};
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git') continue;
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full, `${prefix}${name}/`);
      else files[`${prefix}${name}`] = `${(st.mode & 0o111) !== 0 ? 'x ' : ''}${readFileSync(full).toString('base64')}`;
    }
  };
  walk(repo.dir, '');
  return {
    head: repo.sh('symbolic-ref', '--quiet', 'HEAD'),
    headCommit: repo.sh('rev-parse', 'HEAD'),
    reflog: repo.sh('log', '-g', '-1', '--format=%gs', 'HEAD'),
    index: repo.sh('ls-files', '-s'),
    status: repo.sh('status', '--porcelain=v1', '--untracked-files=all'),
    files,
    MERGE_HEAD: gitFile('MERGE_HEAD'),
    MERGE_MSG: gitFile('MERGE_MSG'),
    MERGE_MODE: gitFile('MERGE_MODE'),
    ORIG_HEAD: repo.sh('rev-parse', 'ORIG_HEAD'),
    AUTO_MERGE: repo.sh('rev-parse', 'AUTO_MERGE'),
  };
}

/** What a declined direct start must leave as it found it (the reflog aside). */
function untouched(repo: TestRepo): Record<string, unknown> {
  return {
    head: run(repo, ['symbolic-ref', '--quiet', 'HEAD']).stdout.trim(),
    headCommit: repo.sh('rev-parse', 'HEAD'),
    index: repo.sh('ls-files', '-s'),
    status: repo.sh('status', '--porcelain=v1', '--untracked-files=all'),
    mergeHead: run(repo, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD']).stdout.trim(),
  };
}

async function expectSameAsPorcelain(repo: TestRepo, above: string, left: string): Promise<void> {
  const other = copyOf(repo);
  const direct = await startMergeDirectly(repo.git, 'imerge/t', above, left, MESSAGE);
  expect(direct).not.toBeNull();
  const expected = porcelain(other, left);
  expect({ stdout: direct?.mergeStdout, stderr: direct?.checkoutStderr }).toEqual(expected);
  expect(snapshot(repo)).toEqual(snapshot(other));
}

describe('the direct merge start leaves what git checkout and git merge --no-commit leave', () => {
  it('from a branch: text, add/add and binary conflicts beside clean edits, deletions, new files and a mode change', async () => {
    const { repo, above, left } = forkRepo();
    await expectSameAsPorcelain(repo, above, left);
    // And git takes it from there: the person resolves, and git commits the merge.
    repo.write({ 'text.txt': 'one\nboth\nthree\n', 'added.txt': 'both\n', 'dir sub/é ü.txt': 'a\nboth\n' });
    repo.sh('add', '-A');
    repo.sh('commit', '--no-edit', '-q');
    expect(repo.sh('log', '-1', '--format=%P%n%s')).toBe(`${above} ${left}\n${MESSAGE}`);
  });

  it('with diff3 conflict markers', async () => {
    const { repo, above, left } = forkRepo();
    repo.sh('config', 'merge.conflictStyle', 'diff3');
    await expectSameAsPorcelain(repo, above, left);
  });

  it('from a detached HEAD that a ref names, as at each continue', async () => {
    const { repo, above, left } = forkRepo();
    repo.sh('tag', 'recorded', 'fork');
    repo.sh('checkout', '-q', '--detach', 'fork');
    await expectSameAsPorcelain(repo, above, left);
  });
});

describe('the direct merge start declines, changing nothing, where the porcelain does more', () => {
  const declines = async (repo: TestRepo, above: string, left: string): Promise<void> => {
    const before = untouched(repo);
    expect(await startMergeDirectly(repo.git, 'imerge/t', above, left, MESSAGE)).toBeNull();
    expect(untouched(repo)).toEqual(before);
  };

  it('rerere, by config or by its directory', async () => {
    const { repo, above, left } = forkRepo();
    repo.sh('config', 'rerere.enabled', 'true');
    await declines(repo, above, left);
    repo.sh('config', 'rerere.enabled', 'false');
    mkdirSync(join(repo.dir, '.git', 'rr-cache'));
    expect(await startMergeDirectly(copyOf(repo).git, 'imerge/t', above, left, MESSAGE)).not.toBeNull();
    repo.sh('config', '--unset', 'rerere.enabled');
    await declines(repo, above, left);
  });

  it('merge options and hooks', async () => {
    const { repo, above, left } = forkRepo();
    repo.sh('config', 'merge.log', 'true');
    await declines(repo, above, left);
    repo.sh('config', '--unset', 'merge.log');
    writeFileSync(join(repo.dir, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\n', { mode: 0o755 });
    await declines(repo, above, left);
  });

  it('a detached HEAD no ref names (checkout would warn of commits left behind)', async () => {
    const { repo, above, left } = forkRepo();
    repo.sh('checkout', '-q', '--detach', 'fork');
    repo.commit('unnamed');
    await declines(repo, above, left);
  });

  it('.gitattributes that differ between HEAD and the scratch branch', async () => {
    const { repo, above, left } = forkRepo();
    repo.commit('attributes', { '.gitattributes': '*.txt merge=union\n' });
    await declines(repo, above, left);
  });

  it('a conflict other than content (modify/delete), after merging: HEAD goes back', async () => {
    const { repo, above, left } = forkRepo({ above: { 'gone.txt': 'changed by the fork\n' } });
    const before = untouched(repo);
    expect(await startMergeDirectly(repo.git, 'imerge/t', above, left, MESSAGE)).toBeNull();
    // Only the reflog tells: HEAD went to the scratch branch and came back.
    expect(untouched(repo)).toEqual(before);
    expect(repo.sh('log', '-g', '-2', '--format=%gs', 'HEAD')).toBe(
      'checkout: moving from imerge/t to fork\ncheckout: moving from fork to imerge/t',
    );
  });

  it('an untracked file where the merge puts one: git says so itself', async () => {
    const { repo, above, left } = forkRepo();
    writeFileSync(join(repo.dir, 'side-new.txt'), 'mine\n');
    const before = untouched(repo);
    expect(await startMergeDirectly(repo.git, 'imerge/t', above, left, MESSAGE)).toBeNull();
    expect(untouched(repo)).toEqual(before);
    expect(readFileSync(join(repo.dir, 'side-new.txt'), 'utf8')).toBe('mine\n');
  });
});
