import { existsSync } from 'node:fs';
import type { RunState } from '../store/run-state.js';
import { printableName, shellWord } from '../util/safe-print.js';
import type { EventSink } from './nodes/node-context.js';
import type { WorkflowContext } from './ports.js';
import type { Removal, RemovalProgress } from './worktree-paths.js';

/** The run's dependencies and the journal a removal's cost is written to. */
type ReleaseContext = WorkflowContext & { journal: EventSink };

/**
 * Remove the worktree of every conflict of `state` whose resolution is in the grid, so the run's
 * disk stays at the open conflicts' worktrees plus the checks' however many conflicts it meets
 * (a resolution is needed again only when a check blames it, and is then presented afresh).
 * Safe to call at any point and after a kill: it looks at what is on disk. A person's worktree
 * holding edits the recorded resolution does not have is kept, and said once in the run.
 */
export async function releaseResolvedWorktrees(
  ctx: ReleaseContext,
  state: RunState,
  progress?: RemovalProgress,
): Promise<void> {
  const done = state.conflicts.filter(
    (c) => c.status === 'resolved' && existsSync(ctx.worktrees.path(ctx.worktrees.conflictId(c.cell))),
  );
  if (done.length === 0) return;
  const { kept, removal } = await ctx.worktrees.releaseConflicts(
    done.map((c) => ({ cell: c.cell, tree: c.resolutionTree ?? null })),
    progress,
  );
  journalRemoval(ctx, removal);
  for (const { id } of kept.filter((k) => k.first)) {
    const path = ctx.worktrees.path(id);
    ctx.log.warn(
      { worktree: path },
      `kept ${printableName(path)}: it holds edits that are not in the recorded resolution of its conflict (remove it yourself once you have what you need: git worktree remove --force ${shellWord(path)})`,
    );
  }
}

/**
 * The run is finished: remove every worktree it still has (the checks', and conflicts' a sweep has
 * not reached), saying each as it goes so a long cleanup is never silent; a person's worktree with
 * edits the merge does not have stays (`releaseResolvedWorktrees`).
 */
export async function removeFinishedRunWorktrees(ctx: ReleaseContext, state: RunState): Promise<void> {
  const progress = (path: string, done: number, total: number): void =>
    ctx.log.info({ worktree: path }, `[cleanup] removed worktree ${done} of ${total}: ${printableName(path)}`);
  await releaseResolvedWorktrees(ctx, state, progress);
  journalRemoval(ctx, await ctx.worktrees.removeRun([], progress));
}

/** A removal's cost, journalled: time left counts the end's cleanup at the run's own pace (estimate.ts). */
function journalRemoval(ctx: ReleaseContext, removal: Removal): void {
  if (removal.count === 0) return;
  ctx.journal.append({
    type: 'worktrees_removed',
    count: removal.count,
    durationMs: Math.round(removal.ms),
    left: ctx.worktrees.held(),
  });
}
