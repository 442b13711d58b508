import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { removeTree } from '../../src/util/remove-tree.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * A conflicted file at a 4,053-byte path from upstream: past PATH_MAX once under the conflict's
 * worktree, which git reaches relative to the tree and Node's fs did not (ENAMETOOLONG failed
 * the merge, and every `continue` after it). The ladder, the hand-off, `take` and `continue`
 * reach it now.
 */
describe('a conflicted path past PATH_MAX in the worktree (CLI)', () => {
  it('merge hands it over, take settles it, continue merges it', async () => {
    const dirs = Array.from({ length: 20 }, () => 'd'.repeat(199));
    const long = [...dirs, 'f'.repeat(4053 - dirs.length * 200)].join('/');
    expect(Buffer.byteLength(long)).toBe(4053);
    const repo = TestRepo.create();
    onTestFinished(() => removeTree(`${repo.dir}-splintercat`));
    repo.commit('base', { [long]: 'x\n' });
    repo.branch('upstream');
    repo.commit('fork', { [long]: 'fork\n' });
    repo.checkout('upstream');
    repo.commit('upstream', { [long]: 'up\n' });
    repo.checkout('main');
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      ['imerge:', '  name: up', 'merge:', '  resolver: manual', 'check:', '  commands:', '    build: "true"', ''].join(
        '\n',
      ),
    );
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n.splintercat/\n');

    const first = await runCli(['merge', 'upstream'], repo.dir);
    expect(first.stderr).not.toMatch(/ENAMETOOLONG/);
    expect(first.code, first.stderr.slice(-2000)).toBe(3);
    const worktree = /^ *cd (\S+)\s+# conflict/m.exec(first.stderr)![1]!;
    const take = await runCli(['take', 'theirs'], worktree);
    expect(take.code, take.stderr.slice(-2000)).toBe(0);
    expect(take.stdout).toMatch(/took theirs for hunk 1; no hunk left, staged/);
    const second = await runCli(['continue'], repo.dir);
    expect(second.stderr).not.toMatch(/ENAMETOOLONG/);
    expect(second.code, second.stderr.slice(-2000)).toBe(0);
    expect(repo.sh('show', `main:${long}`)).toBe('up');
  });
});
