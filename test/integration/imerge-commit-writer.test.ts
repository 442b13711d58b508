import { execFileSync } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/index.js';
import { CommitWriter, IncrementalMerge } from '../../src/imerge/index.js';
import { crossRepo } from '../fixtures/workflow/chain-repo.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { gitSpy } from '../helpers/git-spy.js';

function commitTree(
  repo: TestRepo,
  env: Record<string, string>,
  tree: string,
  parents: string[],
  message: string,
): string {
  return execFileSync('git', ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], {
    cwd: repo.dir,
    env: { ...process.env, ...testGitEnv, ...env },
    input: message,
    encoding: 'utf8',
  }).trim();
}

function gitFor(repo: TestRepo, env: Record<string, string> = {}, gitBinary?: string): Git {
  const git = new Git({ cwd: repo.dir, env: { ...testGitEnv, ...env }, ...(gitBinary ? { gitBinary } : {}) });
  onTestFinished(() => git.close());
  return git;
}

describe('CommitWriter', () => {
  it('writes the commit git commit-tree writes, byte for byte', async () => {
    const repo = TestRepo.create();
    const a = repo.commit('a', { 'a.txt': 'a\n' });
    const b = repo.commit('b', { 'b.txt': 'b\n' });
    const tree = repo.sh('rev-parse', 'HEAD^{tree}');
    const fixed = { GIT_AUTHOR_DATE: '1700000000 +0200', GIT_COMMITTER_DATE: '1700000123 -0730' };
    const writer = new CommitWriter(gitFor(repo, fixed));
    for (const message of ["imerge 'x': manual merge 1-2\n", 'no newline', 'ünïcode\n\nbody\n']) {
      expect(await writer.write(tree, [a, b], message)).toBe(commitTree(repo, fixed, tree, [a, b], message));
    }
    expect(repo.sh('fsck', '--no-dangling', '--strict')).toBe('');
  });

  it('dates each commit when it is written, in the zone git reports', async () => {
    const repo = TestRepo.create();
    const a = repo.commit('a', { 'a.txt': 'a\n' });
    const tree = repo.sh('rev-parse', 'HEAD^{tree}');
    let now = 1_800_000_000_900;
    const writer = new CommitWriter(gitFor(repo), () => now);
    const zone = repo.sh('var', 'GIT_AUTHOR_IDENT').split(' ').pop() as string;
    const first = await writer.write(tree, [a], 'm\n');
    expect(first).toBe(
      commitTree(
        repo,
        { GIT_AUTHOR_DATE: `1800000000 ${zone}`, GIT_COMMITTER_DATE: `1800000000 ${zone}` },
        tree,
        [a],
        'm\n',
      ),
    );
    now += 60_000;
    const later = await writer.write(tree, [a], 'm\n');
    expect(later).toBe(
      commitTree(
        repo,
        { GIT_AUTHOR_DATE: `1800000060 ${zone}`, GIT_COMMITTER_DATE: `1800000060 ${zone}` },
        tree,
        [a],
        'm\n',
      ),
    );

    // git's TZ is not this process's: the zone git reported is kept.
    const east = new CommitWriter(gitFor(repo, { TZ: 'XYZ-5:30' }), () => now);
    const id = await east.write(tree, [a], 'm\n');
    expect(repo.sh('cat-file', 'commit', id)).toContain('author Test Author <author@example.com> 1800000060 +0530\n');
  });
});

describe('recordMerges', () => {
  it('records several resolutions in one ref transaction, with commits written in-process', async () => {
    const repo = crossRepo(
      3,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const im = await IncrementalMerge.start(repo.git, { name: 'b', tip2: 'upstream' });
    const { blockers } = await im.autofill();
    expect([...blockers].sort()).toEqual([
      [1, 3],
      [2, 2],
      [3, 1],
    ]);
    const resolved = await Promise.all(
      blockers.map(async ([i1, i2]) => {
        const d = await im.conflictDetails(i1 as number, i2 as number);
        const ours = d.paths[0]?.stages.ours?.oid as string;
        const entries = repo
          .sh('ls-tree', d.conflictTree)
          .split('\n')
          .map((l) => (l.endsWith('\tvals.txt') ? l.replace(/blob [0-9a-f]+/, `blob ${ours}`) : l));
        const tree = execFileSync('git', ['mktree'], {
          input: `${entries.join('\n')}\n`,
          cwd: repo.dir,
          encoding: 'utf8',
        }).trim();
        return { i1: i1 as number, i2: i2 as number, tree };
      }),
    );
    const spy = gitSpy();
    const git = gitFor(repo, {}, spy.binary);
    const loaded = await IncrementalMerge.load(git, 'b');
    const writer = new CommitWriter(git);
    spy.reset();
    const commits = await loaded.recordMerges(resolved, writer.write);
    // The identity and the object directory once (the state blob is written in-process there
    // too), then one ref transaction.
    expect(
      spy
        .calls()
        .map((c) => c.split(' ').slice(0, 2).join(' '))
        .sort(),
    ).toEqual([
      'rev-parse --path-format=absolute',
      'update-ref --stdin',
      'var GIT_AUTHOR_IDENT',
      'var GIT_COMMITTER_IDENT',
    ]);
    expect(commits.map((c) => repo.sh('rev-parse', `${c}^{tree}`))).toEqual(resolved.map((r) => r.tree));
    for (const [k, { i1, i2 }] of resolved.entries()) {
      expect(repo.sh('rev-parse', `refs/imerge/b/manual/${i1}-${i2}`)).toBe(commits[k]);
      expect(repo.sh('log', '-1', '--format=%s|%an|%cn', commits[k] as string)).toBe(
        `imerge 'b': manual merge ${i1}-${i2}|Test Author|Test Committer`,
      );
    }
    expect(repo.sh('fsck', '--no-dangling', '--strict')).toBe('');
    const again = await IncrementalMerge.load(repo.git, 'b');
    expect((await again.autofill()).complete).toBe(true);
  });
});
