import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CliRun } from '../fixtures/resolve/cli.js';
import type { Arena } from './attack-arena.js';
import type { TestRepo } from './git-repo.js';

/** Histories and hand-off steps the second round of the attack matrix shares. */

/** base, then main and upstream change line 2 of a.txt differently; upstream also adds `files`. */
export function upstreamAdds(files: Record<string, string>): (repo: TestRepo) => void {
  return (repo) => {
    repo.commit('base', { 'a.txt': 'alpha\nbeta\ngamma\n', 'other.txt': 'unrelated\n' });
    repo.branch('upstream');
    repo.commit('fork', { 'a.txt': 'alpha\nbeta fork\ngamma\n' });
    repo.checkout('upstream');
    repo.commit('upstream', { 'a.txt': 'alpha\nbeta upstream\ngamma\n', ...files });
    repo.checkout('main');
  };
}

export const checkConfig = (command: string, extra: string[] = []): string[] => [
  'target:',
  '  branch: main',
  'imerge:',
  '  name: up',
  'check:',
  '  commands:',
  `    quick: ${JSON.stringify(command)}`,
  '  workflow: [quick]',
  ...extra,
];

/** More lines of splintercat.yaml, for an arena whose history is built after it. */
export function appendConfig(arena: Arena, lines: string[]): void {
  const file = join(arena.repo.dir, 'splintercat.yaml');
  writeFileSync(file, `${readFileSync(file, 'utf8')}${lines.join('\n')}\n`);
}

/** The conflict worktree of the printed `cd DIR   # conflict ...` line. */
export function handoffDir(run: CliRun): string {
  const dir = /^\s+cd '?([^'\s]+)'?\s+# conflict/m.exec(run.stderr)?.[1];
  if (dir === undefined) throw new Error(`no cd command in:\n${run.stderr}`);
  return dir;
}

/** merge (a hand-off), the person's edit of a.txt, continue: the run ends. */
export async function mergeHandOffContinue(arena: Arena): Promise<CliRun[]> {
  const first = await arena.cli(['merge', 'upstream']);
  expect(first.stderr).not.toMatch(/at .*\.ts:\d+/);
  expect(first.code, first.stderr).toBe(3);
  const worktree = handoffDir(first);
  writeFileSync(join(worktree, 'a.txt'), 'alpha\nbeta fork and upstream\ngamma\n');
  const second = await arena.cli(['continue']);
  expect(second.stderr).not.toMatch(/at .*\.ts:\d+/);
  return [first, second];
}
