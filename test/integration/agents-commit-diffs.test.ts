import { describe, expect, it, onTestFinished } from 'vitest';
import { commitDiffs } from '../../src/agents/resolver/commit-diffs.js';
import { bound } from '../../src/agents/resolver/tool-context.js';
import { Git } from '../../src/git/index.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { gitSpy } from '../helpers/git-spy.js';

/** What the resolver's prompt showed before: one `git show --format=` per commit. */
function alone(repo: TestRepo, oid: string | undefined, files: string[]): string | undefined {
  if (!oid) return undefined;
  let out: string;
  try {
    out = repo.sh('show', '--no-color', '--no-ext-diff', '--format=', oid, '--', ...files);
  } catch {
    return undefined;
  }
  return out.trim() === '' ? undefined : bound(out, 6000);
}

describe("the two commits' diffs for the resolver prompt", () => {
  it('are what git show prints for each commit alone, from one git process', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'f.txt': 'a\nb\nc\n', 'g.txt': 'g\n', 'big.txt': '' });
    repo.branch('side');
    const a = repo.commit('a', { 'f.txt': 'A\nb\nc\n' });
    const b = repo.commit('b', {
      'f.txt': 'A\nB\nc\n',
      'g.txt': 'G\n',
      'big.txt': Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join(''),
    });
    const c = repo.commit('c', { 'g.txt': 'GG\n' });
    repo.checkout('side');
    repo.commit('side', { 'h.txt': 'h\n' });
    repo.checkout('main');
    repo.sh('merge', '-q', '--no-ff', '--no-commit', 'side');
    repo.write({ 'f.txt': 'A\nB\nC evil\n' });
    repo.sh('add', '-A');
    repo.sh('commit', '-q', '-m', 'merge side');
    const merge = repo.head();
    const missing = '0123456789abcdef0123456789abcdef01234567';

    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    onTestFinished(() => git.close());
    const cases: Array<[string | undefined, string | undefined, string[]]> = [
      [a, b, ['f.txt']],
      [b, a, ['f.txt', 'g.txt']],
      [a, c, ['f.txt']],
      [c, a, ['f.txt']],
      [merge, b, ['f.txt']],
      [b, merge, ['f.txt', 'big.txt']],
      [a, missing, ['f.txt']],
      [undefined, b, ['f.txt']],
      [a, undefined, ['f.txt']],
      [a, a, ['f.txt']],
    ];
    for (const [ours, theirs, files] of cases) {
      expect(await commitDiffs(git, { ours, theirs }, files), `${ours} ${theirs}`).toEqual({
        ours: alone(repo, ours, files),
        theirs: alone(repo, theirs, files),
      });
    }
    expect((await commitDiffs(git, { ours: a, theirs: b }, ['f.txt'])).ours).toContain('+A');
    expect((await commitDiffs(git, { ours: merge, theirs: b }, ['f.txt'])).ours).toContain('diff --cc f.txt');

    spy.reset();
    await commitDiffs(git, { ours: a, theirs: b }, ['f.txt']);
    expect(spy.calls()).toHaveLength(1);
  });
});
