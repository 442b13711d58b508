import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readlinkSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyCheckTree } from '../../src/workflow/check-tree-copy.js';
import { tempDir, TestRepo } from '../helpers/git-repo.js';

const makefile = ['MAKEFLAGS += --no-builtin-rules', '.SUFFIXES:', 'all: a.o b.o', '%.o: %.c', '\tcp $< $@', ''].join(
  '\n',
);

function make(cwd: string, ...args: string[]): string {
  return execFileSync('make', ['-s', ...args], { cwd, encoding: 'utf8' });
}

describe('a new check worktree copied from another of the run', () => {
  it('builds incrementally from the other worktree, with its dependencies and build directory, and links kept relative', async () => {
    const repo = TestRepo.create();
    const first = repo.commit('base', {
      Makefile: makefile,
      '.gitignore': '*.o\nnode_modules/\n',
      'a.c': 'a1\n',
      'b.c': 'b1\n',
    });
    const second = repo.commit('a changes', { 'a.c': 'a2\n' });
    const root = tempDir();
    const [cells, side] = [join(root, 'check'), join(root, 'check-upstream')];
    const [cellsBuild, sideBuild] = [join(root, 'build', 'check'), join(root, 'build', 'check-upstream')];
    repo.sh('worktree', 'add', '--detach', cells, first);
    // The sources are an hour old, the build of them then a minute old: as after a check some time ago.
    const now = Date.now() / 1000;
    for (const f of ['Makefile', '.gitignore', 'a.c', 'b.c']) utimesSync(join(cells, f), now - 3600, now - 3600);
    make(cells);
    for (const f of ['a.o', 'b.o']) utimesSync(join(cells, f), now - 60, now - 60);
    mkdirSync(join(cells, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(join(cells, 'node_modules', 'tool.js'), 'tool\n');
    symlinkSync('../tool.js', join(cells, 'node_modules', '.bin', 'tool'));
    mkdirSync(cellsBuild, { recursive: true });
    writeFileSync(join(cellsBuild, 'cache.bin'), 'cached\n');
    expect(make(cells, '-n')).toBe('');

    await copyCheckTree(
      repo.git,
      { path: cells, buildDir: cellsBuild },
      { path: side, buildDir: sideBuild },
      async (commit) => {
        repo.sh('worktree', 'add', '--detach', side, commit);
        return side;
      },
    );
    // As the worktree pool does on an existing worktree: reset, then the commit to check.
    execFileSync('git', ['reset', '--quiet', '--hard'], { cwd: side });
    expect(make(side, '-n'), 'nothing to rebuild at the same commit').toBe('');
    execFileSync('git', ['checkout', '--quiet', '--force', '--detach', second], { cwd: side });
    expect(make(side, '-n'), 'only what the commit changed is rebuilt').toBe('cp a.c a.o\n');
    make(side);
    expect(execFileSync('cat', ['a.o', 'b.o'], { cwd: side, encoding: 'utf8' })).toBe('a2\nb1\n');

    expect(statSync(join(side, 'b.o')).mtimeMs).toBe(statSync(join(cells, 'b.o')).mtimeMs);
    expect(readlinkSync(join(side, 'node_modules', '.bin', 'tool'))).toBe('../tool.js');
    expect(existsSync(join(sideBuild, 'cache.bin'))).toBe(true);
    // The worktree it came from is as it was.
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: cells, encoding: 'utf8' }).trim()).toBe(first);
    expect(make(cells, '-n')).toBe('');
  });
});
