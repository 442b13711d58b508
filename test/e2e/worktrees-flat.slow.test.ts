import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { crossRepo, chainRepo, writeChainConfig } from '../fixtures/workflow/chain-repo.js';
import type { TestRepo } from '../helpers/git-repo.js';

/**
 * The disk of a run stays flat in the number of conflicts: a conflict's worktree goes as soon as
 * its resolution is recorded, so only the open conflicts' and the checks' worktrees are ever on
 * disk; what a person wrote is in the merge, and a worktree holding edits the run never took stays.
 */
const runDir = (repo: TestRepo): string => join(`${repo.dir}-splintercat`, 'up');
const conflictDirs = (repo: TestRepo): string[] =>
  existsSync(runDir(repo)) ? readdirSync(runDir(repo)).filter((d) => d.startsWith('resolve-')) : [];
const registered = (repo: TestRepo): string[] =>
  repo
    .sh('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ') && l.includes('resolve-'));

/** The person's answer for the value conflict in `dir`: the fork's line and the upstream's, kept together. */
function settle(dir: string): void {
  const file = join(dir, 'vals.txt');
  const text = readFileSync(file, 'utf8').replace(
    /<<<<<<< [^\n]*\n(v\d+) = (\S+)\n\|\|\|\|\|\|\| [^\n]*\n[^\n]*\n=======\n\1 = (\S+)\n>>>>>>> [^\n]*\n/g,
    (_m, name: string, ours: string, theirs: string) => `${name} = ${ours}+${theirs}\n`,
  );
  expect(text).not.toMatch(/<<<<<<<|>>>>>>>/);
  writeFileSync(file, text);
}

describe('worktrees removed as conflicts are recorded', () => {
  it('a chain of conflicts handed over one by one: never more than the open one on disk, none at the end', async () => {
    const n = 5;
    const repo = chainRepo(
      n,
      (k) => `f${k}`,
      (k) => `u${k}`,
    );
    writeChainConfig(repo.dir, ['merge:', '  resolver: manual', '  strategy: per_conflict']);
    let run = await runCli(['merge', 'upstream'], repo.dir);
    const seen: number[] = [];
    for (let round = 0; run.code === 3 && round < n + 2; round++) {
      const open = conflictDirs(repo);
      seen.push(open.length);
      expect(registered(repo)).toHaveLength(open.length);
      for (const d of open) settle(join(runDir(repo), d));
      run = await runCli(['continue'], repo.dir);
    }
    expect(run.code, run.stderr).toBe(0);
    expect(seen).toEqual(Array.from({ length: n }, () => 1));
    expect(conflictDirs(repo)).toEqual([]);
    expect(registered(repo)).toEqual([]);
    expect(existsSync(runDir(repo))).toBe(false);
    // Every answer the person wrote is in the merge.
    const merged = repo.sh('show', 'main:vals.txt');
    for (let k = 1; k <= n; k++) expect(merged).toContain(`v${k} = f${k}+u${k}\n`);
    // The cleanup at the end is said, worktree by worktree.
    expect(run.stderr).toMatch(/\[cleanup\] removed worktree 1 of \d+/);
  }, 300_000);

  it('independent conflicts handed over together: those settled go at continue, the rest keep the edits made so far', async () => {
    const n = 4;
    const repo = crossRepo(
      n,
      (k) => `f${k}`,
      (k) => `u${k}`,
    );
    writeChainConfig(repo.dir, ['merge:', '  resolver: manual', '  strategy: optimistic']);
    const first = await runCli(['merge', 'upstream'], repo.dir);
    expect(first.code, first.stderr).toBe(3);
    const open = conflictDirs(repo).sort();
    expect(open).toHaveLength(n);
    // Two settled; a third half-edited (a note beside the markers), the fourth untouched.
    for (const d of open.slice(0, 2)) settle(join(runDir(repo), d));
    const half = join(runDir(repo), open[2] as string, 'notes.txt');
    writeFileSync(half, 'the person started here\n');
    const second = await runCli(['continue'], repo.dir);
    expect(second.code, second.stderr).toBe(3);
    expect(conflictDirs(repo).sort()).toEqual(open.slice(2));
    expect(registered(repo)).toHaveLength(2);
    expect(readFileSync(half, 'utf8')).toBe('the person started here\n');
    for (const d of open.slice(2)) settle(join(runDir(repo), d));
    const last = await runCli(['continue'], repo.dir);
    expect(last.code, last.stderr).toBe(0);
    expect(conflictDirs(repo)).toEqual([]);
    const merged = repo.sh('show', 'main:vals.txt');
    for (let k = 1; k <= n; k++) expect(merged).toContain(`v${k} = f${k}+u${k}\n`);
    expect(repo.sh('show', 'main:notes.txt')).toMatch(/^the person started here\s*$/);
  }, 300_000);
});
