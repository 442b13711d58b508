import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { cliShellCommand, runCli } from '../fixtures/resolve/cli.js';

const lines = (xs: string[]): string => xs.map((x) => `${x}\n`).join('');
const baseLines = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
const withLine = (i: number, v: string, j?: number, w?: string): string =>
  lines(baseLines.map((x, k) => (k === i ? v : k === j && w !== undefined ? w : x)));

/** main and feature both edit line 2: only in whitespace in a.txt, really in b.txt; c.txt has one of each. */
function conflictingRepo(driver: boolean): TestRepo {
  const repo = TestRepo.create();
  if (driver) {
    repo.sh('config', 'merge.splintercat.name', 'splintercat resolution ladder');
    repo.sh('config', 'merge.splintercat.driver', `${cliShellCommand} driver %O %A %B %P %L`);
  }
  repo.commit('base', {
    '.gitattributes': driver ? '*.txt merge=splintercat\n' : '',
    'a.txt': lines(baseLines),
    'b.txt': lines(baseLines),
    'c.txt': lines(baseLines),
  });
  repo.branch('feature');
  repo.commit('main edits', {
    'a.txt': withLine(1, 'BETA  '),
    'b.txt': withLine(1, 'beta main'),
    'c.txt': withLine(1, 'BETA  ', 8, 'iota main'),
  });
  repo.checkout('feature');
  repo.commit('feature edits', {
    'a.txt': withLine(1, 'BETA'),
    'b.txt': withLine(1, 'beta feature'),
    'c.txt': withLine(1, 'BETA', 8, 'iota feature'),
  });
  return repo;
}

function gitStatus(repo: TestRepo, args: string[]): number {
  try {
    repo.sh(...args);
    return 0;
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe('splintercat driver in a real git merge', () => {
  it('resolves what the rules are sure of and leaves markers only on the rest', () => {
    const repo = conflictingRepo(true);
    repo.checkout('main');
    expect(gitStatus(repo, ['merge', '--no-edit', 'feature'])).not.toBe(0);
    const unmerged = repo.sh('diff', '--name-only', '--diff-filter=U').split('\n');
    expect(unmerged.sort()).toEqual(['b.txt', 'c.txt']);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe(withLine(1, 'BETA  '));
    const c = readFileSync(join(repo.dir, 'c.txt'), 'utf8');
    expect(c).toContain('BETA  \n');
    expect(c.match(/^<<<<<<< /gm)).toHaveLength(1);
    expect(c).toMatch(/<<<<<<< .*\niota main\n\|\|\|\|\|\|\| .*\niota\n=======\niota feature\n>>>>>>> /);
  });

  it('lets the merge commit when every hunk is resolved, and the same history fails without the driver', () => {
    const without = conflictingRepo(false);
    without.checkout('main');
    without.sh('checkout', '-q', '-b', 'only-a', 'main');
    without.sh('checkout', '-q', 'feature', '--', 'b.txt', 'c.txt');
    without.sh('commit', '-q', '-m', 'take b and c from feature');
    expect(gitStatus(without, ['merge', '--no-edit', 'feature'])).not.toBe(0);

    const repo = conflictingRepo(true);
    repo.sh('checkout', '-q', '-b', 'only-a', 'main');
    repo.sh('checkout', '-q', 'feature', '--', 'b.txt', 'c.txt');
    repo.sh('commit', '-q', '-m', 'take b and c from feature');
    expect(gitStatus(repo, ['merge', '--no-edit', 'feature'])).toBe(0);
    expect(repo.sh('rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toHaveLength(3);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe(withLine(1, 'BETA  '));
  });

  it('works in a real git rebase', () => {
    const repo = conflictingRepo(true);
    // feature gets only the whitespace conflict so the rebase can finish on its own
    repo.sh('checkout', '-q', '-b', 'topic', 'main~1');
    repo.commit('topic edit', { 'a.txt': withLine(1, 'BETA'), 'd.txt': 'new file\n' });
    expect(gitStatus(repo, ['rebase', 'main'])).toBe(0);
    expect(repo.sh('status', '--porcelain')).toBe('');
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).not.toMatch(/^<<<<<<</m);
    expect(repo.sh('log', '--format=%s', '-n', '2')).toBe('topic edit\nmain edits');

    repo.sh('checkout', '-q', '-b', 'topic2', 'main~1');
    repo.commit('topic2 edit', { 'b.txt': withLine(1, 'beta feature') });
    expect(gitStatus(repo, ['rebase', 'main'])).not.toBe(0);
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toMatch(/^<<<<<<< /m);
    repo.sh('rebase', '--abort');
  });

  it('honours conflict-marker-size (%L) and leaves both sides in the file when its own config is broken', () => {
    const repo = conflictingRepo(true);
    repo.checkout('main');
    repo.sh('checkout', '-q', '-b', 'sized', 'main');
    repo.commit('marker size', { '.gitattributes': '*.txt merge=splintercat conflict-marker-size=10\n' });
    expect(gitStatus(repo, ['merge', '--no-edit', 'feature'])).not.toBe(0);
    const c = readFileSync(join(repo.dir, 'c.txt'), 'utf8');
    expect(c).toMatch(
      /^<{10} ours:c\.txt\niota main\n\|{10} base:c\.txt\niota\n={10}\niota feature\n>{10} theirs:c\.txt\n/m,
    );
    expect(c).toContain('BETA  \n');
    repo.sh('merge', '--abort');

    repo.write({ 'splintercat.yaml': 'resolve: [not, a, mapping\n' });
    expect(gitStatus(repo, ['merge', '--no-edit', 'feature'])).not.toBe(0);
    const a = readFileSync(join(repo.dir, 'a.txt'), 'utf8');
    expect(a).toMatch(/^<{10} ours:a\.txt\nBETA {2}\n\|{10} base:a\.txt\nbeta\n={10}\nBETA\n>{10} theirs:a\.txt\n/m);
  }, 120_000); // two merges through the driver: six CLI starts, slow on a loaded machine

  it('rejects a bad invocation with a clear message and exit 2', async () => {
    const repo = TestRepo.create();
    const r = await runCli(['driver', 'missing-O', 'missing-A', 'missing-B', 'p.txt'], repo.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Cannot read %O/);
  });
});
