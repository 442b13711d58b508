import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { IncrementalMerge, listImerges } from '../../src/imerge/index.js';
import { testGitEnv } from '../helpers/git-repo.js';
import { createGridRepo } from '../fixtures/imerge/grid-repo.js';

function gitImerge(dir: string, ...args: string[]): string {
  return execFileSync('git-imerge', args, {
    cwd: dir,
    env: { ...process.env, ...testGitEnv, GIT_EDITOR: 'true' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('IncrementalMerge (in memory)', () => {
  it('fills a conflict-free grid, writes git-imerge state, and finishes to one merge commit', async () => {
    const repo = createGridRepo({ n1: 4, n2: 3, conflicts: [] });
    const headBefore = repo.head();
    const im = await IncrementalMerge.start(repo.git, { name: 'm', tip2: 'feature' });
    expect(im.tip1).toBe('main');
    const result = await im.autofill({ jobs: 2 });
    expect(result).toMatchObject({ complete: true, next: null, blockers: [] });
    // git-imerge reads the state splintercat wrote.
    const diagram = gitImerge(repo.dir, 'diagram', '--name', 'm');
    expect(diagram).toContain('- main');
    expect(diagram).toBe(im.diagram());
    expect(gitImerge(repo.dir, 'list')).toBe('* m\n');
    const auto = repo.sh('for-each-ref', '--format=%(refname)', 'refs/imerge/m/auto');
    expect(auto).toContain('refs/imerge/m/auto/4-3');
    expect(repo.sh('log', '-1', '--format=%s%n%P', 'refs/imerge/m/auto/4-3').split('\n')[0]).toBe(
      "imerge 'm': automatic merge 4-3",
    );
    // Commit objects written without git are valid, with the user's identity.
    expect(repo.sh('fsck', '--no-dangling', '--strict')).toBe('');
    expect(repo.sh('log', '-1', '--format=%an <%ae>|%cn', 'refs/imerge/m/auto/4-3')).toBe(
      'Test Author <author@example.com>|Test Committer',
    );
    const commit = await im.finish();
    expect(repo.sh('log', '-1', '--format=%s', commit)).toBe('Merge feature into main (using imerge)');
    expect(repo.sh('log', '-1', '--format=%P', commit)).toBe(
      `${repo.sh('rev-parse', 'main')} ${repo.sh('rev-parse', 'feature')}`,
    );
    expect(repo.sh('rev-parse', `${commit}^{tree}`)).toBe(repo.sh('merge-tree', '--write-tree', 'main', 'feature'));
    expect(repo.sh('rev-parse', 'refs/heads/m')).toBe(commit);
    expect(await listImerges(repo.git)).toEqual([]);
    // The working tree and HEAD were never touched.
    expect(repo.head()).toBe(headBefore);
    expect(repo.sh('status', '--porcelain')).toBe('');
  });

  it('stops at the blocker, reports conflict details, records a tree, and continues', async () => {
    const repo = createGridRepo({ n1: 4, n2: 4, conflicts: [[2, 3]] });
    const im = await IncrementalMerge.start(repo.git, { name: 'c', tip2: 'feature' });
    const r1 = await im.autofill();
    expect(r1.complete).toBe(false);
    expect(r1.next).toEqual([2, 3]);
    const details = await im.conflictDetails(2, 3);
    expect(details.commit1.subject).toBe('main 2');
    expect(details.commit2.subject).toBe('feature 3');
    expect(details.paths.map((p) => [p.path, p.kind])).toEqual([['shared.txt', 'content']]);
    expect(details.paths[0]?.stages.ours?.oid).toMatch(/^[0-9a-f]{40}$/);
    // Resolve by taking branch 1's side of shared.txt on top of the conflicted tree.
    const ours = details.paths[0]?.stages.ours?.oid as string;
    const tree = resolveTree(repo.sh.bind(repo), details.conflictTree, 'shared.txt', ours);
    await im.recordMerge(2, 3, tree);
    expect(repo.sh('log', '-1', '--format=%s', 'refs/imerge/c/manual/2-3')).toBe("imerge 'c': manual merge 2-3");
    const again = await IncrementalMerge.load(repo.git, 'c');
    const r2 = await again.autofill();
    // Taking branch 1's line resolves every later cell too.
    expect(r2).toMatchObject({ complete: true, blockers: [] });
    expect(gitImerge(repo.dir, 'diagram', '--name', 'c')).toContain('*');
    const commit = await again.finish();
    expect(repo.sh('show', `${commit}:shared.txt`)).toBe('line 0 changed on main by 2');
  });

  it('remove deletes every ref of the merge and nothing else', async () => {
    const repo = createGridRepo({ n1: 2, n2: 2, conflicts: [[1, 1]] });
    const im = await IncrementalMerge.start(repo.git, { name: 'r', tip2: 'feature' });
    await im.autofill();
    const other = await IncrementalMerge.start(repo.git, { name: 'keep', tip2: 'feature' });
    await im.remove();
    expect(await listImerges(repo.git)).toEqual(['keep']);
    expect(repo.sh('for-each-ref', '--format=%(refname)', 'refs/imerge/r')).toBe('');
    expect(other.cellCommit(0, 0)).toBe(repo.sh('merge-base', 'main', 'feature'));
  });
});

/** Replace one blob in a tree (top-level path only) and write the new tree. */
function resolveTree(sh: (...a: string[]) => string, tree: string, path: string, blob: string): string {
  const entries = sh('ls-tree', tree)
    .split('\n')
    .map((l) => (l.endsWith(`\t${path}`) ? l.replace(/blob [0-9a-f]+/, `blob ${blob}`) : l));
  return execFileSync('git', ['mktree'], {
    input: `${entries.join('\n')}\n`,
    cwd: sh('rev-parse', '--show-toplevel'),
    encoding: 'utf8',
  }).trim();
}
