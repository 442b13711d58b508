import { existsSync, rmSync } from 'node:fs';
import { setupStampPath } from '../checks/setup-stamp.js';
import { copyCheckTree, worktreeBuildDir, type CopySource } from './check-tree-copy.js';
import type { Side } from '../store/run-state.js';
import type { WorkflowContext } from './ports.js';

/**
 * The check worktree at `commit`, ready for a check: the cells' one, or for a baseline of `side`
 * (its tip, or the fork or upstream commit of a cell) that side's own. Incremental (the default): build outputs
 * (ignored files, the run's build directory) stay from the last check, so only what changed is
 * rebuilt, and `check.setup` runs only when its inputs changed. With `check.incremental: false`
 * every commit checked starts from scratch: ignored files and the build directory are removed and
 * the setup runs again (the checks of one commit, a build then its tests, still share them).
 * Incremental, a check worktree made now starts as a copy of another one of the run (check-tree-copy.ts).
 */
export async function prepareCheckTree(
  ctx: WorkflowContext,
  commit: string,
  side: Side | null = null,
): Promise<string> {
  const id = side === null ? ctx.worktrees.checkId : ctx.worktrees.sideCheckIds[side];
  const path = ctx.worktrees.path(id);
  const head = existsSync(path) ? await headOf(ctx, path) : null;
  const scratch = !ctx.config.check.incremental && head !== commit;
  const source = head === null && ctx.config.check.incremental ? copySource(ctx, id) : null;
  if (source) {
    const target = { path, buildDir: worktreeBuildDir(ctx.buildDir, path) };
    await copyCheckTree(ctx.git, source, target, (at) => ctx.worktrees.checkout(id, at));
  }
  const cwd = await ctx.worktrees.checkout(id, commit, { clean: scratch });
  if (scratch) {
    // The check worktree's own build directory (check-runner.ts: one per worktree).
    const buildDir = worktreeBuildDir(ctx.buildDir, cwd);
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
    rmSync(setupStampPath(cwd, ctx.config.log.dir), { force: true });
  }
  return cwd;
}

/**
 * The run's other check worktree a new one starts from (check-tree-copy.ts), so its first check
 * rebuilds what differs rather than everything: the cells' one for a side's, else the other side's.
 */
function copySource(ctx: WorkflowContext, id: string): CopySource | null {
  const { checkId, sideCheckIds } = ctx.worktrees;
  for (const other of [checkId, sideCheckIds.fork, sideCheckIds.upstream]) {
    const path = ctx.worktrees.path(other);
    if (other !== id && existsSync(path)) return { path, buildDir: worktreeBuildDir(ctx.buildDir, path) };
  }
  return null;
}

/** Remove the run's build directory (when the run is finished or dropped). */
export function removeBuildDir(buildDir: string | null | undefined): void {
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
}

async function headOf(ctx: WorkflowContext, path: string): Promise<string | null> {
  const wt = ctx.git.at(path);
  try {
    return await wt.revParse('HEAD');
  } finally {
    wt.close();
  }
}
