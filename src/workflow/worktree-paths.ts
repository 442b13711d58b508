import { existsSync, lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultWorktreesDir, type Config } from '../config/index.js';
import { SplintercatError } from '../errors/index.js';
import { printableName } from '../util/safe-print.js';

/**
 * The directory of run `name`'s worktrees: `<merge.worktrees>/NAME`, by default beside the
 * repository (`<parent>/<repo>-splintercat/NAME`) so no path under test has a dot-directory.
 * A run started before that keeps its worktrees where they are, under `.git/splintercat/NAME/`.
 */
export function runWorktreesDir(config: Config, gitCommonDir: string, name: string): string {
  const legacy = join(gitCommonDir, 'splintercat', name, 'worktrees');
  if (existsSync(legacy)) return legacy;
  return resolve(
    config.merge.worktrees === '' ? defaultWorktreesDir(resolve(config.target.workdir)) : config.merge.worktrees,
    name,
  );
}

/** Whether anything (a link too) is at `path`. */
export function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The error for a checkout of another repository where the run's worktree goes. */
export function otherCheckout(path: string): SplintercatError {
  return new SplintercatError('worktree_foreign', {
    what: `${printableName(path)} holds a checkout this repository does not know, where the run's worktree goes`,
    why: "It is another repository's or another clone's (merge.worktrees names a directory they use too)",
    fix: ['Set merge.worktrees in splintercat.yaml to a directory of this clone only', 'Or move that checkout away'],
  });
}

/** How many worktrees a removal took off the disk, and in how many milliseconds. */
export interface Removal {
  count: number;
  ms: number;
}

/** Told of each worktree removed: its path, how many of the `total` asked are done. */
export type RemovalProgress = (path: string, done: number, total: number) => void;
