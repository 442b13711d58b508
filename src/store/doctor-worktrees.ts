import { existsSync } from 'node:fs';
import type { Git } from '../git/index.js';
import { shellWord } from '../util/safe-print.js';
import type { RunState } from './run-state.js';

/** A problem with a run's worktrees, as doctor reports it. */
export interface WorktreeFinding {
  severity: 'error' | 'warning';
  path: string;
  message: string;
  repairable: boolean;
}

/**
 * The run's worktrees (under `dir`, outside `.git/` by default): registrations whose directory
 * is gone (`git worktree prune` clears them), and a hand-off whose worktree no longer exists.
 */
export async function worktreeFindings(git: Git, dir: string, state: RunState | null): Promise<WorktreeFinding[]> {
  const findings: WorktreeFinding[] = [];
  for (const path of await prunableWorktrees(git, dir)) {
    findings.push({
      severity: 'warning',
      path,
      message: `the worktree ${path} is registered in git but its directory is gone`,
      repairable: true,
    });
  }
  const where = state?.status === 'needs_person' ? state.handoff?.where : null;
  if (where && !existsSync(where)) {
    findings.push({
      severity: 'error',
      path: where,
      message: `the worktree of the hand-off, ${where}, does not exist (removed by hand?): the edit the merge waits for cannot be made; start over with \`splintercat merge ${state ? shellWord(state.upstream.ref) : 'SOURCE'} --restart\``,
      repairable: false,
    });
  }
  return findings;
}

/** Registered worktrees under `dir` whose directory is gone. */
export async function prunableWorktrees(git: Git, dir: string): Promise<string[]> {
  const list = await git.text(['worktree', 'list', '--porcelain']);
  const out: string[] = [];
  for (const entry of list.split('\n\n')) {
    const lines = entry.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (path !== undefined && path.startsWith(`${dir}/`) && lines.some((l) => l.startsWith('prunable'))) out.push(path);
  }
  return out;
}
