import { describe, expect, it, onTestFinished } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Git } from '../../src/git/index.js';
import { resolveWorkingTree } from '../../src/resolve/index.js';
import { sandboxedRegenerateRunner } from '../../src/resolve/data/lockfiles.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { regenerateConfig } from '../helpers/regenerate-config.js';

/** A merge where package-lock.json conflicts (and, with `other`, a second file that no rule resolves). */
function conflictedRepo(other: boolean): TestRepo {
  const repo = TestRepo.create();
  const base = { 'package-lock.json': '{\n  "version": "1.0.0"\n}\n', 'notes.txt': 'a\n' };
  repo.commit('base', base);
  repo.branch('feature');
  repo.commit('main', {
    'package-lock.json': '{\n  "version": "1.1.0"\n}\n',
    ...(other ? { 'notes.txt': 'main\n' } : {}),
  });
  repo.checkout('feature');
  repo.commit('feature', {
    'package-lock.json': '{\n  "version": "1.2.0"\n}\n',
    ...(other ? { 'notes.txt': 'feature\n' } : {}),
  });
  repo.checkout('main');
  expect(() => repo.sh('merge', '--no-edit', 'feature')).toThrow();
  return repo;
}

const write = `node -e "require('fs').writeFileSync('package-lock.json', JSON.stringify({ regenerated: true }) + '\\\\n')"`;

describe('lockfiles and resolve.regenerate', () => {
  it('regenerates a configured lockfile with its command in the worktree and stages it', async () => {
    const repo = conflictedRepo(false);
    const git = new Git({ cwd: repo.dir, env: testGitEnv });
    onTestFinished(() => git.close());
    const results = await resolveWorkingTree(git, {
      top: repo.dir,
      rules: [],
      regenerate: { 'package-lock.json': write },
      runCommand: sandboxedRegenerateRunner(regenerateConfig(repo.dir)),
    });
    expect(results.map((r) => [r.path, r.status])).toEqual([['package-lock.json', 'resolved']]);
    expect(results[0]?.note).toMatch(/^regenerated with `node -e/);
    expect(readFileSync(join(repo.dir, 'package-lock.json'), 'utf8')).toBe('{"regenerated":true}\n');
    expect(repo.sh('diff', '--name-only', '--diff-filter=U').trim()).toBe('');
  });

  it('without a command, hands the lockfile on with a note saying how to configure one', async () => {
    const repo = conflictedRepo(false);
    const git = new Git({ cwd: repo.dir, env: testGitEnv });
    onTestFinished(() => git.close());
    const results = await resolveWorkingTree(git, { top: repo.dir, rules: [] });
    expect(results.map((r) => [r.path, r.status])).toEqual([['package-lock.json', 'open']]);
    expect(results[0]?.note).toMatch(
      /is a lockfile.*resolve\.regenerate: \{ "package-lock\.json": "npm install --package-lock-only --ignore-scripts" \}/,
    );
  });

  it('waits for the other conflicted files (the manifest) before regenerating, and reports a failing command', async () => {
    const repo = conflictedRepo(true);
    const git = new Git({ cwd: repo.dir, env: testGitEnv });
    onTestFinished(() => git.close());
    const waiting = await resolveWorkingTree(git, {
      top: repo.dir,
      rules: [],
      regenerate: { '*.json': write },
      runCommand: sandboxedRegenerateRunner(regenerateConfig(repo.dir)),
    });
    expect(waiting.map((r) => [r.path, r.status])).toEqual([
      ['notes.txt', 'open'],
      ['package-lock.json', 'open'],
    ]);
    expect(waiting[1]?.note).toMatch(/not run: other conflicted files \(its manifest\) are not resolved yet/);

    const single = conflictedRepo(false);
    const git2 = new Git({ cwd: single.dir, env: testGitEnv });
    onTestFinished(() => git2.close());
    const failed = await resolveWorkingTree(git2, {
      top: single.dir,
      rules: [],
      regenerate: { 'package-lock.json': 'echo no network >&2; exit 3' },
      runCommand: sandboxedRegenerateRunner(regenerateConfig(repo.dir)),
    });
    expect(failed.map((r) => [r.path, r.status])).toEqual([['package-lock.json', 'open']]);
    expect(failed[0]?.note).toMatch(/failed \(exit 3\): no network/);
  });
});
