import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';

/**
 * The choices `take` offers are the ones that exist: no `base` where both sides added the file,
 * a whole side (or its deletion) for every kind of conflict named without a hunk, and `git rm`
 * of a conflicted file taken by `continue`; `status` shows what is left after takes, and a
 * finished run shows no time left.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';
const spaced = (a: string, b: string): string => lines('x', a, '1', '2', '3', '4', '5', '6', '7', '8', b, 'z');

function commitAll(repo: TestRepo, files: Record<string, string | Buffer | null>, message: string): void {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) repo.sh('rm', '-q', path);
    else writeFileSync(join(repo.dir, path), content);
  }
  repo.sh('add', '-A');
  repo.sh('commit', '-q', '-m', message);
}

describe('take offers and accepts the choices that exist', () => {
  it('after git merge: base refused where both sides added the file; a whole side taken for every kind', async () => {
    const repo = TestRepo.create();
    commitAll(
      repo,
      {
        'keep.txt': 'k\n',
        'gone.txt': 'g\n',
        'bin.dat': Buffer.from([0, 1, 2]),
        'package-lock.json': '{\n"v": 1\n}\n',
      },
      'base',
    );
    repo.branch('up');
    commitAll(
      repo,
      {
        'n.txt': lines('one', 'two'),
        'gone.txt': null,
        'bin.dat': Buffer.from([0, 1, 3]),
        'package-lock.json': '{\n"v": 2\n}\n',
      },
      'fork',
    );
    repo.checkout('up');
    commitAll(
      repo,
      {
        'n.txt': lines('uno', 'dos'),
        'gone.txt': 'g changed\n',
        'bin.dat': Buffer.from([0, 1, 4]),
        'package-lock.json': '{\n"v": 3\n}\n',
      },
      'upstream',
    );
    repo.checkout('main');
    expect(() => repo.sh('-c', 'merge.conflictstyle=diff3', 'merge', '--no-edit', 'up')).toThrow();
    const added = readFileSync(join(repo.dir, 'n.txt'), 'utf8');
    // git writes an empty base section for an add/add: it is no version of the file.
    expect(added).toMatch(/^\|{7} /m);
    for (const args of [
      ['take', 'base', 'n.txt'],
      ['take', 'base', 'n.txt', '1'],
    ]) {
      const base = await runCli(args, repo.dir);
      expect(base.code, args.join(' ')).toBe(2);
      expect(base.stderr).toMatch(/n\.txt: both sides added the file, so there is no base to take/);
      expect(base.stderr).toMatch(/n\.txt hunk 1 \(lines 1-8\): splintercat take ours\|theirs\|both n\.txt 1$/m);
    }
    expect(readFileSync(join(repo.dir, 'n.txt'), 'utf8')).toBe(added);
    expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toMatch(/n\.txt/);

    // The fork deleted gone.txt: ours is its deletion.
    const gone = await runCli(['take', 'ours', 'gone.txt'], repo.dir);
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.stdout).toMatch(
      /^gone\.txt: took ours for the whole file: deleted it \(ours has no such file\); staged$/m,
    );
    expect(existsSync(join(repo.dir, 'gone.txt'))).toBe(false);
    const bin = await runCli(['take', 'theirs', 'bin.dat'], repo.dir);
    expect(bin.code, bin.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, 'bin.dat'))).toEqual(Buffer.from([0, 1, 4]));
    const both = await runCli(['take', 'both', 'package-lock.json'], repo.dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/'both' is no version of the whole file/);
    const lock = await runCli(['take', 'theirs', 'package-lock.json'], repo.dir);
    expect(lock.code, lock.stderr).toBe(0);
    expect(lock.stdout).toMatch(
      /package-lock\.json: took theirs for the whole file: kept the upstream side's whole file; regenerate it from the merged sources: npm install --package-lock-only/,
    );
    expect(readFileSync(join(repo.dir, 'package-lock.json'), 'utf8')).toBe('{\n"v": 3\n}\n');
    expect(lock.stdout).toMatch(/n\.txt hunk 1 \(lines 1-8\): splintercat take ours\|theirs\|both n\.txt 1$/m);
    const rest = await runCli(['take', 'theirs', 'n.txt'], repo.dir);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toMatch(/No conflict left\.\nThen: git commit/);
    expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('');
  });

  it('in a run: labels agree, git rm of a conflicted file is taken, status shows what is left, a finished run has no time left', async () => {
    const repo = TestRepo.create();
    commitAll(repo, { 'History.md': lines('a', 'b', 'c'), 'other.c': spaced('y', 'w') }, 'base');
    repo.branch('upstream');
    commitAll(repo, { 'History.md': lines('a', 'B fork', 'c'), 'n.txt': lines('one', 'two') }, 'fork');
    commitAll(repo, { 'other.c': spaced('Y fork', 'W fork') }, 'fork 2');
    repo.checkout('upstream');
    commitAll(repo, { 'History.md': lines('a', 'B up', 'c'), 'n.txt': lines('uno', 'dos') }, 'up');
    commitAll(repo, { 'other.c': spaced('Y up', 'W up') }, 'up 2');
    repo.checkout('main');
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      'target:\n  branch: main\ncheck:\n  commands:\n    test: "true"\n  workflow: [test]\nimerge:\n  name: up\nmerge:\n  strategy: per_conflict\n',
    );
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    const merge = await runCli(['merge', 'upstream'], repo.dir);
    expect(merge.code, merge.stderr).toBe(3);
    // The same kind as take names it, and no base offered where there is none.
    expect(merge.stderr).toMatch(/^ {2}n\.txt \[add\/add, 1 hunk\(s\)\]: both sides added n\.txt/m);
    expect(merge.stderr).toMatch(/^ {4}hunk 1 \(lines 1-8\): splintercat take ours\|theirs\|both n\.txt 1 /m);
    expect(merge.stderr).toMatch(
      /^ {4}hunk 1 \(lines 2-8\): splintercat take ours\|theirs\|both\|base History\.md 1 /m,
    );
    const first = join(repo.dir, '..', 'repo-splintercat', 'up', 'resolve-1-1');
    const base = await runCli(['take', 'base', 'n.txt'], first);
    expect(base.code).toBe(2);
    const added = await runCli(['take', 'theirs', 'n.txt'], first);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/History\.md hunk 1 \(lines 2-8\): splintercat take ours\|theirs\|both\|base/);
    // The maintainer deletes the file in conflict.
    execFileSync('git', ['rm', '-q', '--', 'History.md'], { cwd: first, env: { ...process.env, ...testGitEnv } });
    const next = await runCli(['continue'], repo.dir);
    expect(next.stderr).not.toMatch(/fatal: path 'History\.md' exists on disk/);
    expect(next.code, next.stderr).toBe(3);
    expect(next.stderr).toMatch(/Resolved 1-1/);

    const second = join(repo.dir, '..', 'repo-splintercat', 'up', 'resolve-2-2');
    const before = await runCli(['status'], repo.dir);
    expect(before.stdout).toMatch(/hunk 1 \(lines 2-8\): splintercat take ours\|theirs\|both\|base other\.c 1/);
    const one = await runCli(['take', 'ours', 'other.c', '1'], second);
    expect(one.code, one.stderr).toBe(0);
    const status = await runCli(['status'], repo.dir);
    expect(status.stdout).toMatch(
      /other\.c \[content, 1 hunk\(s\)\]: .*\(1 of the 2 hunk\(s\) handed over settled since; 1 left\)/,
    );
    expect(status.stdout).toMatch(/hunk 2 \(lines 11-17\): splintercat take ours\|theirs\|both\|base other\.c 2/);
    expect(status.stdout).not.toMatch(/hunk 1 \(lines/);
    const json = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      handoff: { conflicts: Array<{ files: Array<{ blocks: Array<{ hunk: number }> }> }> };
    };
    expect(json.handoff.conflicts[0]?.files[0]?.blocks.map((b) => b.hunk)).toEqual([2]);
    const two = await runCli(['take', 'theirs', 'other.c', '2'], second);
    expect(two.code, two.stderr).toBe(0);
    const done = await runCli(['continue'], repo.dir);
    expect(done.code, done.stderr).toBe(0);
    const finished = await runCli(['status'], repo.dir);
    expect(finished.stdout).toMatch(/progress: conflicts 2 done, 0 left \| no check running \| elapsed [^|]*$/m);
    expect(finished.stdout).not.toMatch(/~0ms left|~\d+ expected/);
  });
});
