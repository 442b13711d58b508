import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliShellCommand, repoRoot } from '../fixtures/resolve/cli.js';
import { parseConflictText, personChoice } from '../../src/resolve/index.js';

/** `../shared/real-histories`: git bundles of real forks merging their upstream (CI has it beside the clone). */
export const realHistoriesDir = resolve(repoRoot, '../shared/real-histories');

/** One fork sync listed in the bundles' README: the maintainer's merge and its two parents. */
export interface RealMerge {
  bundle: string;
  /** The maintainer's merge commit (its tree is the result to compare with). */
  merge: string;
  subject: string;
  /** First parent: the fork line. */
  fork: string;
  /** Second parent: the upstream release. */
  upstream: string;
  grid: string;
}

/** The merges of `README.md`'s table, in its order (so a row added there is run too). */
export function listRealMerges(dir = realHistoriesDir): RealMerge[] {
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const merges: RealMerge[] = [];
  for (const line of readme.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const m = /^([0-9a-f]{40}) "(.*)"$/.exec(cells[2] ?? '');
    if (!m || !cells[1]?.endsWith('.bundle')) continue;
    merges.push({
      bundle: cells[1],
      merge: m[1] as string,
      subject: m[2] as string,
      fork: cells[3] as string,
      upstream: cells[4] as string,
      grid: cells[5] as string,
    });
  }
  return merges;
}

/** Run git in `cwd` with the person's environment; returns trimmed stdout. */
export function gitIn(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  }).trimEnd();
}

/**
 * A fresh machine for a fork maintainer: an empty HOME with only a git identity
 * (as `git config --global` would set it), and `splintercat` on PATH.
 */
export function maintainerEnv(root: string): NodeJS.ProcessEnv {
  const home = join(root, 'home');
  const bin = join(root, 'bin');
  mkdirSync(home, { recursive: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = Fork Maintainer\n\temail = maintainer@example.com\n[init]\n\tdefaultBranch = main\n',
  );
  writeFileSync(join(bin, 'splintercat'), `#!/bin/sh\nexec ${cliShellCommand} "$@"\n`);
  chmodSync(join(bin, 'splintercat'), 0o755);
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    CI: process.env.CI ?? '',
  };
  return env;
}

/**
 * Clone the bundle and set the fork up as its maintainer had it before the merge:
 * branch `fork` checked out at the first parent, branch `upstream` at the second.
 */
export function cloneFork(merge: RealMerge, root: string, env: NodeJS.ProcessEnv): string {
  const dir = join(root, 'fork');
  execFileSync('git', ['clone', '-q', '--no-checkout', join(realHistoriesDir, merge.bundle), dir], {
    env,
    stdio: 'ignore',
  });
  gitIn(dir, env, 'checkout', '-q', '-b', 'fork', merge.fork);
  gitIn(dir, env, 'branch', 'upstream', merge.upstream);
  return dir;
}

/** The ecosystem of a cloned history, by the manifest at its checked-out fork commit. */
export type Ecosystem = 'node' | 'python';

export function ecosystemOf(repo: string, env: NodeJS.ProcessEnv): Ecosystem {
  const files = gitIn(repo, env, 'ls-tree', '--name-only', 'HEAD').split('\n');
  if (files.includes('package.json')) return 'node';
  if (files.some((f) => ['setup.py', 'setup.cfg', 'pyproject.toml'].includes(f))) return 'python';
  throw new Error(`${repo}: neither package.json nor a Python project file at HEAD; add its ecosystem to the journey`);
}

/** A block of a hand-off: its number, the one-command answers, and what the past merges suggest. */
interface HandoffHunk {
  hunk: number;
  take: Record<string, string>;
  suggestion?: { choice: string; command: string; evidence: string; basis?: string };
}

/** A file of a hand-off as `status --json` gives it. */
interface HandoffFile {
  path: string;
  kind: string;
  /** Commands that settle a file-level choice (modify/delete: keep or delete). */
  choices?: { keep?: string; delete?: string };
  /** The conflict blocks left, with their `splintercat take` commands. */
  blocks?: HandoffHunk[];
}

/**
 * What the person did with the blocks handed to them (`followHandoff` with `take`): how many,
 * how many one `splintercat take` answered, how many had a suggestion and how many of those the
 * person's answer matched, and the files they wrote by hand.
 */
export interface PersonTally {
  hunks: number;
  oneCommand: number;
  suggested: number;
  matchedSuggestion: number;
  /** Files written with the maintainer's bytes: some block needed text of neither side. */
  byHand: number;
  /** The suggestions by what they rest on (habit, similar lines, combined): shown, and equal to the person's answer. */
  byBasis: Record<string, { shown: number; matched: number }>;
}

export function emptyTally(): PersonTally {
  return { hunks: 0, oneCommand: 0, suggested: 0, matchedSuggestion: 0, byHand: 0, byBasis: {} };
}

/** What `status --json` says a person must do. */
export interface Handoff {
  reason: string;
  where: string | null;
  conflicts?: Array<{
    conflict: string;
    worktree: string;
    files: HandoffFile[];
    failure?: { check: string; cleanlyMerged?: string[] } | null;
  }>;
  commands: string[];
  /** With a failed check: the command that accepts it as expected at this step. */
  accept?: string;
}

/** One step the simulated person took, for the test's account. */
export interface PersonStep {
  cwd: string;
  command: string;
  code: number;
  output: string;
}

/**
 * What the person did at each conflict so far (by conflict id): the files they wrote, and how
 * often they were sent back to it.
 */
export type PersonMemory = Map<string, { files: string[]; visits: number }>;

/**
 * A person at a hand-off who does exactly what it prints: `cd` into each printed
 * directory, settle the files of that conflict as the maintainer committed them
 * (write the maintainer's bytes; `git rm` where the maintainer deleted the file,
 * using the printed choice where one is given), then run the printed command with
 * a shell. Reads nothing but the hand-off and the maintainer's merge commit.
 *
 * The maintainer's bytes are the end result; at an early cell of the grid they can need code
 * the fork has not reached yet, and the check fails on them. Sent back to a conflict with a
 * failed check, the person does what a maintainer would at that step: keeps the fork's side
 * (`git checkout HEAD -- FILE`) of the files they wrote, leaving the upstream change to a later
 * cell; the final tree is compared with the maintainer's anyway.
 */
export function followHandoff(
  repo: string,
  mergeCommit: string,
  handoff: Handoff,
  env: NodeJS.ProcessEnv,
  memory: PersonMemory = new Map(),
  tally?: PersonTally,
): PersonStep[] {
  const steps: PersonStep[] = [];
  let cwd = repo;
  let accept = false;
  for (const printed of handoff.commands) {
    const command = printed.replace(/\s+#.*$/, '').trim();
    const cd = /^cd\s+(.+)$/.exec(command);
    if (cd) {
      cwd = resolve(cwd, (cd[1] as string).replace(/^(["'])(.*)\1$/, '$2'));
      const conflict = handoff.conflicts?.find((c) => resolve(c.worktree) === cwd);
      if (conflict) {
        const seen = memory.get(conflict.conflict) ?? { files: [], visits: 0 };
        if (seen.visits === 1 && conflict.failure) steps.push(...keepForkSide(cwd, seen.files, env));
        else if (seen.visits >= 2 && conflict.failure && handoff.accept) accept = true;
        else for (const file of conflict.files) steps.push(...settleFile(repo, cwd, mergeCommit, file, env, tally));
        memory.set(conflict.conflict, {
          files: [...new Set([...seen.files, ...conflict.files.map((f) => f.path)])],
          visits: seen.visits + 1,
        });
      }
      steps.push({
        cwd,
        command,
        code: existsSync(cwd) ? 0 : 1,
        output: existsSync(cwd) ? '' : `no such directory: ${cwd}`,
      });
      continue;
    }
    const next = accept && /^splintercat continue\b/.test(command) && handoff.accept ? handoff.accept : command;
    const run = spawnSync('sh', ['-c', next], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    steps.push({ cwd, command: next, code: run.status ?? 1, output: `${run.stdout}${run.stderr}` });
  }
  return steps;
}

/** The fork's side (the worktree's HEAD) of each file, or its removal where HEAD has none. */
function keepForkSide(cwd: string, files: string[], env: NodeJS.ProcessEnv): PersonStep[] {
  return files.map((path) => {
    const inHead = spawnSync('git', ['cat-file', '-e', `HEAD:${path}`], { cwd, env }).status === 0;
    const command = inHead ? `git checkout HEAD -- '${path}'` : `git rm -q --ignore-unmatch -- '${path}'`;
    const run = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8' });
    return { cwd, command, code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
  });
}

function settleFile(
  repo: string,
  cwd: string,
  mergeCommit: string,
  file: HandoffFile,
  env: NodeJS.ProcessEnv,
  tally?: PersonTally,
): PersonStep[] {
  const kept = spawnSync('git', ['cat-file', '-e', `${mergeCommit}:${file.path}`], { cwd: repo, env }).status === 0;
  const sh = (command: string): PersonStep => {
    const run = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8' });
    return { cwd, command, code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
  };
  if (!kept) return [sh(file.choices?.delete ?? `git rm -q -- '${file.path}'`)];
  const bytes = execFileSync('git', ['cat-file', 'blob', `${mergeCommit}:${file.path}`], {
    cwd: repo,
    env,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (tally && file.blocks && file.blocks.length > 0) {
    const taken = takeHunks(cwd, file, bytes, tally, sh);
    if (taken !== null) return taken;
  }
  mkdirSync(resolve(cwd, file.path, '..'), { recursive: true });
  writeFileSync(resolve(cwd, file.path), bytes);
  const steps: PersonStep[] = [
    { cwd, command: `write ${file.path} as in ${mergeCommit.slice(0, 12)}`, code: 0, output: '' },
  ];
  if (file.choices?.keep) steps.push(sh(file.choices.keep));
  return steps;
}

/** The take command of a person's choice (as `eval` names it), from a block's commands. */
const takeKey: Record<string, string> = {
  ours: 'ours',
  theirs: 'theirs',
  'ours then theirs': 'both',
  'theirs then ours': 'both theirs-first',
  base: 'base',
};

/**
 * Where every block of the file is one the maintainer settled with a side (or both, or the
 * base), answer each with its one `splintercat take` command, and leave the file so (at a cell
 * before the last, the maintainer's final file also holds what later commits bring). Null when
 * some block needs text of neither side, or a take failed: the caller writes the maintainer's bytes.
 */
function takeHunks(
  cwd: string,
  file: HandoffFile,
  maintainer: Buffer,
  tally: PersonTally,
  sh: (command: string) => PersonStep,
): PersonStep[] | null {
  const blocks = file.blocks ?? [];
  const presented = parseConflictText(readFileSync(resolve(cwd, file.path), 'latin1'), { path: file.path });
  const text = maintainer.toString('latin1');
  const choices = presented.hunks.map((h) => personChoice(presented, h, text));
  tally.hunks += blocks.length;
  for (const [i, b] of blocks.entries())
    if (b.suggestion) {
      const basis = (tally.byBasis[b.suggestion.basis ?? 'unknown'] ??= { shown: 0, matched: 0 });
      tally.suggested++;
      basis.shown++;
      if (choices.length === blocks.length && b.suggestion.choice === choices[i]) {
        tally.matchedSuggestion++;
        basis.matched++;
      }
    }
  const commands = blocks.map((b, i) => b.take[takeKey[choices[i] ?? ''] ?? '']);
  if (choices.length !== blocks.length || commands.some((c) => c === undefined)) {
    tally.byHand++;
    return null;
  }
  const steps = commands.map((c) => sh(c as string));
  if (steps.some((s) => s.code !== 0)) {
    tally.byHand++;
    return null;
  }
  tally.oneCommand += steps.length;
  return steps;
}
