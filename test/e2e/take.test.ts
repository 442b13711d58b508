import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * `splintercat take` in the working tree `git merge` leaves: one command writes a side, both or
 * the base for a hunk or a whole file, keeps every other byte, numbers hunks stably while
 * others are taken, and refuses what it does not apply to, writing nothing.
 */
const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

/** base, fork (main) and upstream (feature) versions of each file; the merge of feature into main stops. */
function merged(
  files: Record<string, [Buffer | string | null, Buffer | string | null, Buffer | string | null]>,
  style = 'merge',
): TestRepo {
  const repo = TestRepo.create();
  const put = (i: 0 | 1 | 2): void => {
    for (const [path, versions] of Object.entries(files)) {
      const v = versions[i];
      if (v === null) repo.sh('rm', '-q', '--ignore-unmatch', path);
      else writeFileSync(join(repo.dir, path), v);
    }
    repo.sh('add', '-A');
  };
  put(0);
  repo.sh('commit', '-q', '-m', 'base');
  repo.branch('feature');
  put(1);
  repo.sh('commit', '-q', '-m', 'fork');
  repo.checkout('feature');
  put(2);
  repo.sh('commit', '-q', '-m', 'upstream');
  repo.checkout('main');
  expect(() => repo.sh('-c', `merge.conflictStyle=${style}`, 'merge', '--no-edit', 'feature')).toThrow();
  return repo;
}

const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('splintercat take', () => {
  it('takes one hunk by its number, then another whose number did not change, and stages the file', async () => {
    const repo = merged({
      'f.txt': [
        lines('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
        lines('a', 'B fork', 'c', 'd', 'e', 'f', 'G fork', 'h'),
        lines('a', 'B up', 'c', 'd', 'e', 'f', 'G up', 'h'),
      ],
    });
    const second = await runCli(['take', 'theirs', 'f.txt', '2'], repo.dir);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^f\.txt: took theirs for hunk 2$/m);
    expect(second.stdout).toMatch(/f\.txt hunk 1 \(lines 2-6\): splintercat take ours\|theirs\|both\|base f\.txt 1$/m);
    expect(second.stdout).toMatch(/When they are settled: git commit/);
    // Hunk 2 is gone: asking for it again says so and writes nothing.
    const again = await runCli(['take', 'ours', 'f.txt', '2'], repo.dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/hunk 2 of f\.txt is settled already: it was taken \(its hunks now: 1\)/);
    const first = await runCli(['take', 'both', '--order', 'theirs-first', 'f.txt', '1'], repo.dir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /took both, theirs-first for hunk 1; no hunk left, staged\nNo conflict left\.\nThen: git commit/,
    );
    expect(readFileSync(join(repo.dir, 'f.txt'), 'utf8')).toBe(
      lines('a', 'B up', 'B fork', 'c', 'd', 'e', 'f', 'G up', 'h'),
    );
    expect(repo.sh('diff', '--name-only', '--diff-filter=U').trim()).toBe('');
  });

  it('keeps every other byte: Latin-1, CRLF, no final line break; base from a file without base sections', async () => {
    const repo = merged({
      'l1.txt': [latin1('caf\xe9\nx\n'), latin1('caf\xe9\nx fork \xe9\n'), latin1('caf\xe9\nx up \xe8\n')],
      'crlf.txt': ['one\r\ntwo\r\nend\r\n', 'one\r\nTWO fork\r\nend\r\n', 'one\r\nTWO up\r\nend\r\n'],
      'eof.txt': ['a\nlast', 'a\nlast fork', 'a\nlast up\n'],
    });
    const run = await runCli(['take', 'ours'], repo.dir);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, 'l1.txt'))).toEqual(latin1('caf\xe9\nx fork \xe9\n'));
    expect(readFileSync(join(repo.dir, 'crlf.txt'), 'utf8')).toBe('one\r\nTWO fork\r\nend\r\n');
    // Ours ended without a line break, as the file now does.
    expect(readFileSync(join(repo.dir, 'eof.txt'), 'utf8')).toBe('a\nlast fork');
    expect(run.stdout).toMatch(/No conflict left\./);

    const again = merged({
      'eof.txt': ['a\nlast', 'a\nlast fork', 'a\nlast up\n'],
      'b.txt': ['1\n2\n', '1\nfork\n', '1\nup\n'],
    });
    const up = await runCli(['take', 'theirs', 'eof.txt'], again.dir);
    expect(up.code, up.stderr).toBe(0);
    expect(readFileSync(join(again.dir, 'eof.txt'), 'utf8')).toBe('a\nlast up\n');
    const base = await runCli(['take', 'base', 'b.txt', '1'], again.dir);
    expect(base.code, base.stderr).toBe(0);
    expect(readFileSync(join(again.dir, 'b.txt'), 'utf8')).toBe('1\n2\n');
  });

  it('refuses what the choice does not apply to, naming what settles it, and writes nothing', async () => {
    const repo = merged({
      'gone.txt': ['g\n', null, 'g changed\n'],
      'bin.dat': [Buffer.from([0, 1, 2]), Buffer.from([0, 1, 3]), Buffer.from([0, 1, 4])],
      'clean.txt': ['c\n', 'c\n', 'c\n'],
      'added.txt': [null, 'fork\n', 'up\n'],
      'package-lock.json': ['{\n"v": 1\n}\n', '{\n"v": 2\n}\n', '{\n"v": 3\n}\n'],
    });
    const before = readFileSync(join(repo.dir, 'added.txt'), 'utf8');
    const cases: Array<[string[], RegExp]> = [
      [
        ['take', 'both', 'gone.txt'],
        /gone\.txt is a modify\/delete conflict: it is decided whole, and 'both' is no version[\s\S]*splintercat take theirs gone\.txt/,
      ],
      [
        ['take', 'base', 'bin.dat'],
        /bin\.dat is a binary conflict: it is decided whole[\s\S]*splintercat take ours bin\.dat/,
      ],
      [['take', 'ours', 'clean.txt'], /clean\.txt has no conflict: git lists it as merged/],
      [['take', 'ours', 'nope.txt'], /nope\.txt: no such file in the working tree/],
      [
        ['take', 'base', 'added.txt'],
        /both sides added the file, so there is no base[\s\S]*splintercat take ours added\.txt/,
      ],
      [['take', 'mine', 'added.txt'], /'mine' is not a choice take knows/],
      [
        ['take', 'ours', 'package-lock.json', '1'],
        /package-lock\.json is generated by npm \(package-lock\.json\): it is decided whole, never hunk by hunk[\s\S]*splintercat take ours package-lock\.json, then npm install --package-lock-only/,
      ],
      [['take', 'ours', '--order', 'theirs-first', 'added.txt'], /--order goes with both, not with ours/],
      [['take', 'ours', 'added.txt', 'x'], /'x' is not a hunk number/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, repo.dir);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(join(repo.dir, 'added.txt'), 'utf8')).toBe(before);
    expect(existsSync(join(repo.dir, 'gone.txt'))).toBe(true);
    // Without a file: what applies is taken, the rest listed with its commands.
    const all = await runCli(['take', 'theirs'], repo.dir);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^added\.txt: took theirs for hunk 1; no hunk left, staged$/m);
    expect(all.stdout).toMatch(/not taken: gone\.txt is a modify\/delete conflict/);
    expect(all.stdout).toMatch(
      / {2}gone\.txt \[modify\/delete\]: git rm -q -- gone\.txt {2}or {2}git add -- gone\.txt/,
    );
  });
});
