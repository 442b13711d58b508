import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testGitEnv } from '../helpers/git-repo.js';
import { createGridRepo } from '../fixtures/imerge/grid-repo.js';

const root = join(import.meta.dirname, '..', '..');

function cli(dir: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('node', ['--import', 'tsx', join(root, 'src/cli/main.ts'), '-C', dir, 'imerge', ...args], {
    cwd: root,
    env: { ...process.env, ...testGitEnv, GIT_EDITOR: 'true' },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('splintercat imerge (CLI)', () => {
  it('start stops at a conflict as git-imerge does; continue records it; finish merges; list/diagram/remove', () => {
    const repo = createGridRepo({ n1: 4, n2: 4, conflicts: [[2, 3]] });
    const start = cli(repo.dir, 'start', '--name', 'm', 'feature');
    expect(start.stderr).toContain('There was a conflict merging commit 2-3, shown above.');
    expect(start.stderr).toContain('Original first commit:');
    // The two original commits as `git log --no-walk` shows each, first then second.
    expect(start.stdout).toMatch(
      /^commit [0-9a-f]{40}\nAuthor: [^]*\n\n {4}main 2\ncommit [0-9a-f]{40}\nAuthor: [^]*\n\n {4}feature 3\n$/m,
    );
    expect(start.code).toBe(0);
    expect(repo.sh('symbolic-ref', 'HEAD')).toBe('refs/heads/imerge/m');
    expect(existsSync(join(repo.dir, '.git', 'MERGE_HEAD'))).toBe(true);
    expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('shared.txt');
    expect(repo.sh('rev-parse', 'HEAD')).toBe(repo.sh('rev-parse', 'refs/imerge/m/auto/2-2'));

    // Unresolved files: continue refuses, listing them.
    const early = cli(repo.dir, 'continue');
    expect(early.code).not.toBe(0);
    expect(early.stderr).toContain('unstaged changes');
    expect(early.stderr).toContain('shared.txt');

    writeFileSync(join(repo.dir, 'shared.txt'), 'resolved\n');
    repo.sh('add', 'shared.txt');
    const cont = cli(repo.dir, 'continue', '--no-edit');
    expect(cont.stderr).toContain('Merge has been recorded for merge 2-3.');
    expect(cont.code).toBe(0);
    expect(repo.sh('log', '-1', '--format=%s%n%P', 'refs/imerge/m/manual/2-3')).toBe(
      `imerge 'm': manual merge 2-3\n${repo.sh('rev-parse', 'refs/imerge/m/auto/2-2')} ${repo.sh('rev-parse', 'refs/imerge/m/auto/1-3')}`,
    );
    // 'resolved' conflicts with both sides again at 3-3 (main 3 keeps main's line; feature 3 too).
    if (cont.stderr.includes('There was a conflict')) {
      writeFileSync(join(repo.dir, 'shared.txt'), 'resolved\n');
      repo.sh('add', 'shared.txt');
      repo.sh('commit', '-q', '--no-edit');
      expect(cli(repo.dir, 'continue').code).toBe(0);
    }
    const diagram = cli(repo.dir, 'diagram');
    expect(diagram.code).toBe(0);
    expect(diagram.stdout).toContain('*');
    expect(diagram.stdout).toContain('Key:');
    expect(cli(repo.dir, 'list').stdout).toBe('* m\n');
    const fin = cli(repo.dir, 'finish');
    expect(fin.code).toBe(0);
    expect(repo.sh('symbolic-ref', '--short', 'HEAD')).toBe('m');
    expect(repo.sh('log', '-1', '--format=%s%n%P')).toBe(
      `Merge feature into main (using imerge)\n${repo.sh('rev-parse', 'main')} ${repo.sh('rev-parse', 'feature')}`,
    );
    expect(repo.sh('show', 'HEAD:shared.txt')).toBe('resolved');
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
    expect(cli(repo.dir, 'list').stdout).toBe('');
  }, 60_000);

  it('refuses an unclean working tree listing the files, and remove cleans up a stopped merge', () => {
    const repo = createGridRepo({ n1: 3, n2: 3, conflicts: [[1, 1]] });
    writeFileSync(join(repo.dir, 'README.md'), 'dirty\n');
    const dirty = cli(repo.dir, 'start', '--name', 'x', 'feature');
    expect(dirty.code).toBe(2);
    expect(dirty.stderr).toContain('README.md');
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
    repo.sh('checkout', '-q', '--', 'README.md');
    expect(cli(repo.dir, 'start', '--name', 'x', 'feature').code).toBe(0);
    expect(repo.sh('symbolic-ref', 'HEAD')).toBe('refs/heads/imerge/x');
    repo.sh('reset', '-q', '--merge');
    repo.sh('checkout', '-q', 'main');
    // Name in use: say how to remove it.
    const again = cli(repo.dir, 'start', '--name', 'x', 'feature');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("Name 'x' is already in use!");
    expect(again.stderr).toContain('splintercat imerge remove --name x');
    repo.sh('checkout', '-q', 'imerge/x');
    const rm = cli(repo.dir, 'remove');
    expect(rm.code).toBe(0);
    expect(repo.sh('for-each-ref', 'refs/imerge', 'refs/heads/imerge')).toBe('');
    expect(existsSync(join(repo.dir, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(repo.sh('status', '--porcelain')).toBe('');
  }, 60_000);

  it('merge stores into the current branch; init + autofill + simplify + finish; autofill fails at a conflict', () => {
    const repo = createGridRepo({ n1: 3, n2: 3, conflicts: [] });
    const m = cli(repo.dir, 'merge', 'feature');
    expect(m.code).toBe(0);
    expect(m.stderr).toContain('Merge is complete!');
    expect(cli(repo.dir, 'list').stdout).toBe('* feature\n');
    const fin = cli(repo.dir, 'finish');
    expect(fin.code).toBe(0);
    expect(repo.sh('symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(repo.sh('log', '-1', '--format=%s')).toBe('Merge feature into main (using imerge)');
    expect(cli(repo.dir, 'merge', 'feature').stdout).toBe('Already up-to-date.\n');

    const other = createGridRepo({ n1: 3, n2: 3, conflicts: [[2, 2]] });
    expect(cli(other.dir, 'init', '--name', 'i', 'feature').code).toBe(0);
    expect(other.sh('for-each-ref', '--format=%(refname)', 'refs/imerge/i/auto')).toBe('');
    const auto = cli(other.dir, 'autofill');
    expect(auto.code).toBe(1);
    expect(auto.stderr).toContain('Conflict; suggest manual merge of 2-2');
    expect(other.sh('symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(other.sh('status', '--porcelain')).toBe('');
    const simp = cli(other.dir, 'simplify');
    expect(simp.code).not.toBe(0);
    expect(simp.stderr).toContain('Merge i is not yet complete!');
  }, 60_000);
});
