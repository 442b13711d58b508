import { cpSync, existsSync, lstatSync, lutimesSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Git } from '../git/index.js';

/** A check worktree to copy from: its directory and its build directory (check-runner.ts: one per worktree). */
export interface CopySource {
  path: string;
  buildDir: string | null;
}

/**
 * Make the new check worktree at `path` what `source` is: checked out at the same commit, with its
 * ignored files (dependencies, build outputs) and its build directory copied, and every file's
 * modification time as it is there. Checking out another commit afterwards touches only the files
 * that differ, so a build in the new worktree is as incremental as one in `source` would be, and
 * `check.setup` finds its dependencies installed (it runs again: its stamp stays with `source`).
 * The copy keeps timestamps, so an output older than its source there stays older here; symbolic
 * links are copied as they are, so a relative one points inside the new worktree.
 */
export async function copyCheckTree(
  git: Git,
  source: CopySource,
  target: { path: string; buildDir: string | null },
  checkout: (commit: string) => Promise<string>,
): Promise<void> {
  const from = git.at(source.path);
  let head: string;
  let ignored: string[];
  try {
    head = await from.text(['rev-parse', 'HEAD']);
    ignored = split(await from.text(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']));
  } finally {
    from.close();
  }
  await checkout(head);
  for (const entry of ignored) {
    const path = entry.replace(/\/$/, '');
    copyKeeping(join(source.path, path), join(target.path, path));
  }
  if (source.buildDir && target.buildDir && existsSync(source.buildDir)) copyKeeping(source.buildDir, target.buildDir);
  const to = git.at(target.path);
  try {
    for (const file of split(await to.text(['ls-files', '-z']))) {
      const stat = lstatOrNull(join(source.path, file));
      if (stat) tolerate(() => lutimesSync(join(target.path, file), stat.atime, stat.mtime));
    }
    // The index learns the new times (the contents are the same), so the next checkout or reset
    // leaves those files alone instead of writing them again.
    await to.run(['update-index', '-q', '--refresh'], { okExitCodes: [0, 1] });
  } finally {
    to.close();
  }
}

/** The build directory of the check worktree at `worktree`, under the run's `buildDir`. */
export function worktreeBuildDir(buildDir: string | null | undefined, worktree: string): string | null {
  return buildDir ? join(buildDir, basename(worktree)) : null;
}

function copyKeeping(from: string, to: string): void {
  tolerate(() => cpSync(from, to, { recursive: true, force: true, preserveTimestamps: true, verbatimSymlinks: true }));
}

/** A file that cannot be copied or dated (gone meanwhile, a name git printed that is not UTF-8) is built again: no harm. */
function tolerate(step: () => void): void {
  try {
    step();
  } catch {
    // the check rebuilds what is missing or newer
  }
}

function lstatOrNull(path: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function split(text: string): string[] {
  return text.split('\0').filter(Boolean);
}
