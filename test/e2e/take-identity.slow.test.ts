import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/index.js';
import { takeInWorkingTree } from '../../src/resolve/take/take-in-tree.js';
import type { TakeChoice } from '../../src/resolve/take/take-command.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * `splintercat take` by the identity a hunk was handed over with: four hunks with the very
 * same sides (one `uses:` line bumped differently on each branch) keep their numbers whatever
 * was taken before them, so any order of takes writes the same file.
 */
const job = (n: number, uses: string): string =>
  `job${n}:\n  steps:\n    - uses: actions/checkout@${uses}\n    - run: step${n}\n\n`;
const workflow = (uses: string, ...overrides: Array<[number, string]>): string =>
  [1, 2, 3, 4].map((n) => job(n, overrides.find(([k]) => k === n)?.[1] ?? uses)).join('');

/** A workflow file with four identical checkout lines: v4 on main, v3.6.0 upstream; `git merge` in diff3 style stops. */
function identicalHunks(): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'f.yml': workflow('v3') });
  repo.branch('up');
  repo.commit('fork', { 'f.yml': workflow('v4') });
  repo.checkout('up');
  repo.commit('upstream', { 'f.yml': workflow('v3.6.0') });
  repo.checkout('main');
  expect(() => repo.sh('-c', 'merge.conflictstyle=diff3', 'merge', '--no-edit', 'up')).toThrow();
  return repo;
}

const side: Record<TakeChoice, string> = { ours: 'v4', theirs: 'v3.6.0', both: '', base: 'v3', combined: '' };
const plan: Array<[number, TakeChoice]> = [
  [1, 'theirs'],
  [2, 'ours'],
  [3, 'theirs'],
  [4, 'base'],
];
const planned = workflow('', ...plan.map(([n, c]): [number, string] => [n, side[c]]));

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
}

describe('take by the identity a hunk was handed over with', () => {
  it('the reproduction: take theirs 1, ours 2, theirs 3 settle hunks 1, 2 and 3 of four identical ones', async () => {
    const repo = identicalHunks();
    const one = await runCli(['take', 'theirs', 'f.yml', '1'], repo.dir);
    expect(one.code, one.stderr).toBe(0);
    // What is left keeps the numbers and says where each hunk was handed over; no choice reads as the default.
    expect(one.stdout).toMatch(
      /^ {2}f\.yml hunk 2 \(lines 8-14, handed over at 14-20\): splintercat take ours\|theirs\|both\|base f\.yml 2$/m,
    );
    expect(one.stdout).not.toMatch(/\(or theirs, both, base\)/);
    const two = await runCli(['take', 'ours', 'f.yml', '2'], repo.dir);
    expect(two.code, two.stderr).toBe(0);
    const three = await runCli(['take', 'theirs', 'f.yml', '3'], repo.dir);
    expect(three.code, three.stderr).toBe(0);
    expect(three.stdout).toMatch(/^f\.yml: took theirs for hunk 3$/m);
    expect(three.stdout).toMatch(/f\.yml hunk 4 \(lines 18-24, handed over at 36-42\)/);
    const text = readFileSync(join(repo.dir, 'f.yml'), 'utf8');
    expect(text.startsWith(job(1, 'v3.6.0') + job(2, 'v4') + job(3, 'v3.6.0'))).toBe(true);
    expect(text).toMatch(/job4:\n {2}steps:\n<<<<<<< HEAD\n/);
    // A hunk taken is named as taken, not as unknown.
    const again = await runCli(['take', 'ours', 'f.yml', '2'], repo.dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/hunk 2 of f\.yml is settled already: it was taken \(its hunks now: 4\)/);
  });

  it('every order of the four takes writes the same file', async () => {
    const repo = identicalHunks();
    const git = new Git({ cwd: repo.dir });
    const merged = readFileSync(join(repo.dir, 'f.yml'));
    try {
      for (const order of permutations(plan)) {
        repo.sh('checkout', '-m', '--', 'f.yml');
        // `checkout -m` writes the hunks in the default style: the base comes from a diff3 re-merge.
        writeFileSync(join(repo.dir, 'f.yml'), merged);
        for (const [hunk, choice] of order) {
          const outcome = await takeInWorkingTree(git, repo.dir, { choice, path: 'f.yml', hunk });
          expect(outcome.refused, `${order.map((o) => o.join(' ')).join(', ')}`).toEqual([]);
          expect(outcome.taken).toEqual([{ path: 'f.yml', hunks: [hunk], staged: hunk === order[3]?.[0] }]);
        }
        expect(readFileSync(join(repo.dir, 'f.yml'), 'utf8'), order.map((o) => o.join(' ')).join(', ')).toBe(planned);
      }
    } finally {
      git.close();
    }
  });

  it('a hunk settled by hand among identical ones leaves the others their numbers', async () => {
    const repo = identicalHunks();
    const listed = await runCli(['take', 'theirs', 'f.yml', '1'], repo.dir);
    expect(listed.code, listed.stderr).toBe(0);
    // The person settles hunk 3 in an editor, keeping their own version of the line.
    const text = readFileSync(join(repo.dir, 'f.yml'), 'utf8');
    const hunks = [...text.matchAll(/<<<<<<< HEAD\n[\s\S]*?>>>>>>> up\n/g)];
    expect(hunks).toHaveLength(3);
    const third = hunks[1]!;
    writeFileSync(
      join(repo.dir, 'f.yml'),
      text.slice(0, third.index) + '    - uses: actions/checkout@v5\n' + text.slice(third.index + third[0].length),
    );
    const four = await runCli(['take', 'ours', 'f.yml', '4'], repo.dir);
    expect(four.code, four.stderr).toBe(0);
    expect(four.stdout).toMatch(/^ {2}f\.yml hunk 2 \(lines 8-14, handed over at 14-20\)/m);
    expect(four.stdout).not.toMatch(/hunk [134] /);
    const two = await runCli(['take', 'base', 'f.yml', '2'], repo.dir);
    expect(two.code, two.stderr).toBe(0);
    expect(readFileSync(join(repo.dir, 'f.yml'), 'utf8')).toBe(
      workflow('', [1, 'v3.6.0'], [2, 'v3'], [3, 'v5'], [4, 'v4']),
    );
  });
});
