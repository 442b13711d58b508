import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { CliRun } from '../fixtures/resolve/cli.js';
import { assertInvariants, before, createArena, expectWorkingTree, type Arena } from './attack-arena.js';
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

/** build.sh conflicts between main and upstream; other.txt merges cleanly; `extra` files are in base. */
export function buildConflict(extra: Record<string, string> = {}): (repo: TestRepo) => void {
  return (repo) => {
    repo.commit('base', { 'build.sh': 'echo build\n', 'other.txt': 'unrelated\n', ...extra });
    repo.branch('upstream');
    repo.commit('fork', { 'build.sh': 'echo build fork\n' });
    repo.checkout('upstream');
    repo.commit('upstream', { 'build.sh': 'echo build upstream\n' });
    repo.checkout('main');
  };
}

/** splintercat.yaml lines for a merge of upstream into main as run `up`, with one check `name` running `command`. */
export const checkConfig = (command: string, extra: string[] = [], name = 'quick'): string[] => [
  'target:',
  '  branch: main',
  'imerge:',
  '  name: up',
  'check:',
  '  commands:',
  `    ${name}: ${JSON.stringify(command)}`,
  `  workflow: [${name}]`,
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

/**
 * The log-link row: a check that passes on the tips but fails on the merge replaces its newest log with a
 * link to `target` (HOME spelled `HOME`); nothing behind the link is read back into the summary, the
 * hand-off excerpt, the journal or the report, and the five invariants hold.
 */
export async function logLinkAttack(sandbox: string, target: string): Promise<void> {
  const arena = await createArena(() => undefined, { model: false });
  const logs = join(arena.repo.dir, '.splintercat', 'logs');
  const link = target.replace('HOME', arena.home);
  // Benign until the merge holds the person's resolution: then the tips pass and only the merge fails.
  const hostile = [
    "grep -q 'fork and upstream' a.txt || exit 0",
    `log=$(ls -t ${logs}/quick-*.log 2>/dev/null | head -1)`,
    `[ -n "$log" ] && rm -f "$log" && ln -s ${link} "$log" && echo linked`,
    'exit 1',
    '',
  ].join('\n');
  arena.repo.commit('base', { 'a.txt': 'alpha\nbeta\ngamma\n', 'test.sh': 'exit 0\n' });
  arena.repo.branch('upstream');
  arena.repo.commit('fork', { 'a.txt': 'alpha\nbeta fork\ngamma\n' });
  arena.repo.checkout('upstream');
  arena.repo.commit('upstream', { 'a.txt': 'alpha\nbeta upstream\ngamma\n', 'test.sh': hostile });
  arena.repo.checkout('main');
  appendConfig(arena, checkConfig('sh test.sh', [`  sandbox: ${sandbox}`]));
  const snap = before(arena, expectWorkingTree(arena, []));
  const runs = await mergeHandOffContinue(arena);
  // The merge fails the check, which the tips pass: the person is asked to amend, with the log's excerpt.
  expect(runs[1]?.code, runs[1]?.stderr).toBe(3);
  expect(runs[1]?.stderr).toMatch(/check 'quick' failed/);
  const status = await arena.cli(['status', '--json']);
  await assertInvariants(arena, snap, [...runs, status], { report: true });
}
