import { existsSync } from 'node:fs';
import { Git } from './git.js';

/** Where a repository is, seen from any directory inside it or inside one of its worktrees. */
export interface RepoLocation {
  /** The repository's common git directory (`.git` of the main checkout), absolute. */
  commonDir: string;
  /** The main checkout (the first entry of `git worktree list`); null for a bare repository. */
  mainCheckout: string | null;
}

/**
 * Find the repository from `cwd`: a directory of the main checkout, of a linked worktree
 * (wherever it lives: splintercat's are outside the repository) or of its git directory.
 * Null when `cwd` is in no repository (or does not exist).
 */
export async function locateRepository(cwd: string): Promise<RepoLocation | null> {
  if (!existsSync(cwd)) return null;
  const git = new Git({ cwd });
  try {
    const common = await git.run(['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      okExitCodes: [0, 128],
    });
    if (common.exitCode !== 0) return null;
    const commonDir = common.stdout.trim();
    const list = await git.text(['worktree', 'list', '--porcelain']);
    const first = list.split('\n\n')[0] ?? '';
    const lines = first.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    return { commonDir, mainCheckout: path !== undefined && !lines.includes('bare') ? path : null };
  } finally {
    git.close();
  }
}

/** The checkout (main or linked worktree) that has `branch` checked out, if any. */
export async function checkoutOfBranch(git: Git, branch: string): Promise<string | null> {
  const list = await git.text(['worktree', 'list', '--porcelain']);
  for (const entry of list.split('\n\n')) {
    const lines = entry.split('\n');
    if (lines.includes(`branch refs/heads/${branch}`))
      return lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length) ?? null;
  }
  return null;
}
