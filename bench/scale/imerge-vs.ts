/**
 * `imerge start` on the scale fixture's grid: splintercat (the built CLI, one process, as a user
 * runs it) against git-imerge 1.2.0, each on its own fresh copy of the repository, in the same run,
 * as bench/engine.ts compares them. Both must stop at the same first conflict with the same
 * blockers recorded in their state blobs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { cliMain } from '../_cli.js';
import { benchGitEnv } from '../_env.js';

export interface ImergeComparison {
  splintercatMs: number;
  gitImergeMs: number;
  /** The conflict each presented first. */
  first: { splintercat: string; gitImerge: string };
  /** The blockers each recorded (state blob), as `I1-I2`, sorted. */
  blockers: { splintercat: string[]; gitImerge: string[] };
  same: boolean;
}

function git(dir: string, args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: benchGitEnv, encoding: 'utf8' });
}

function blockersOf(dir: string, name: string): string[] {
  const state = JSON.parse(git(dir, ['cat-file', 'blob', `refs/imerge/${name}/state`])) as { blockers: number[][] };
  return state.blockers.map(([i1, i2]) => `${i1}-${i2}`).sort();
}

function run(dir: string, command: string, args: string[]): { ms: number; first: string } {
  execFileSync('sync');
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd: dir, env: benchGitEnv, encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.slice(-2000)}`);
  return { ms, first: /conflict merging commit (\d+-\d+)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? '?' };
}

/** Time both tools' `imerge start --first-parent SOURCE` on copies of `dir` (left as they were). */
export function compareImergeStart(dir: string, source: string): ImergeComparison {
  const copies = { sc: `${dir}-imerge-sc`, gi: `${dir}-imerge-gi` };
  for (const copy of Object.values(copies)) {
    cpSync(dir, copy, { recursive: true });
    // A copy's files all have new times: refresh the index as a user's checkout has it.
    git(copy, ['update-index', '-q', '--refresh']);
  }
  try {
    const sc = run(copies.sc, process.execPath, [cliMain, 'imerge', 'start', '--name', 'sc', '--first-parent', source]);
    const gi = run(copies.gi, 'git-imerge', ['start', '--name', 'gi', '--first-parent', source]);
    const blockers = { splintercat: blockersOf(copies.sc, 'sc'), gitImerge: blockersOf(copies.gi, 'gi') };
    return {
      splintercatMs: sc.ms,
      gitImergeMs: gi.ms,
      first: { splintercat: sc.first, gitImerge: gi.first },
      blockers,
      same: sc.first === gi.first && blockers.splintercat.join() === blockers.gitImerge.join(),
    };
  } finally {
    for (const copy of Object.values(copies)) rmSync(copy, { recursive: true, force: true });
  }
}
