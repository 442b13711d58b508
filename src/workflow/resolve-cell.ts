import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createModelRung, type ModelRung } from '../agents/index.js';
import type { FailureSummary } from '../checks/types.js';
import { hasMarkers, resolveWorkingTree, shellRegenerateRunner, type WorkingTreeFileResult } from '../resolve/index.js';
import type { ConflictFileState } from '../store/run-state.js';
import type { Cell } from '../imerge/cell.js';
import type { GridEngine, WorkflowContext } from './ports.js';

export type CellResolution = (
  | { ok: true; cell: Cell; tree: string; files: ConflictFileState[] }
  | { ok: false; cell: Cell; worktree: string; files: ConflictFileState[]; left: string[] }
) & {
  /** The resolver model's conversations (for the journal and the report); empty when it was not asked. */
  transcripts?: ModelRung['outcomes'];
};

/** A blocked cell presented in its own worktree, ready for the ladder. */
export interface PreparedCell {
  cell: Cell;
  details: Awaited<ReturnType<GridEngine['conflictCell']>>;
  /** The worktree holding the conflicted merge. */
  path: string;
  entries: Awaited<ReturnType<WorkflowContext['worktrees']['presentMerge']>>['entries'];
}

/** Present the merge of a blocked cell's two parent cells in the cell's own worktree. */
export async function prepareCell(ctx: WorkflowContext, engine: GridEngine, cell: Cell): Promise<PreparedCell> {
  const details = await engine.conflictCell(cell);
  const { path, entries } = await ctx.worktrees.presentMerge(ctx.worktrees.conflictId(cell), details.above, details.left);
  return { cell, details, path, entries };
}

/**
 * Resolve a presented cell down the ladder (cache, rules, model) in its worktree: run the
 * ladder on every unmerged path and — when nothing is left — write the tree. The tree is
 * recorded by the caller, in grid order, so the outcome never depends on timing.
 */
export async function resolvePrepared(ctx: WorkflowContext, prepared: PreparedCell, options: { failure?: FailureSummary | string | null } = {}): Promise<CellResolution> {
  const { cell, details, path, entries } = prepared;
  const id = ctx.worktrees.conflictId(cell);
  const wt = ctx.git.at(path, { worktree: true });
  try {
    const rung =
      ctx.gateway && ctx.config.llm.resolver_model && ctx.config.merge.resolver !== 'manual'
        ? createModelRung({
            gateway: ctx.gateway,
            git: wt,
            workdir: path,
            runCheck: ctx.checks,
            details,
            failure: options.failure ?? null,
            maxTurns: ctx.config.llm.max_turns,
            log: ctx.log,
          })
        : null;
    const results =
      ctx.config.merge.resolver === 'manual'
        ? await resolveWorkingTree(wt, { unmerged: entries, top: path, rules: [], cache: null })
        : await resolveWorkingTree(wt, {
            unmerged: entries,
            top: path,
            rules: ctx.ladder.rules,
            cache: ctx.ladder.cache,
            fallback: rung?.fallback,
            syntax: ctx.ladder.syntax,
            regenerate: ctx.ladder.regenerate,
            runCommand: shellRegenerateRunner(),
          });
    const files = results.map(toFileState);
    const left = results.filter((r) => r.status !== 'resolved').map((r) => r.path);
    const transcripts = rung?.outcomes ?? [];
    if (left.length > 0) return { ok: false, cell, worktree: path, files, left, transcripts };
    return { ok: true, cell, tree: await ctx.worktrees.writeTree(id), files, transcripts };
  } finally {
    wt.close();
  }
}

/**
 * After a human edited the conflict's worktree: the files still holding markers,
 * or the tree when everything is resolved.
 */
export async function collectHumanResolution(ctx: WorkflowContext, cell: Cell): Promise<{ ok: true; tree: string } | { ok: false; left: string[] }> {
  const id = ctx.worktrees.conflictId(cell);
  const wt = ctx.git.at(ctx.worktrees.path(id));
  try {
    const changed = (await wt.lines(['diff', '--name-only', 'HEAD'])).filter((f) => existsSync(join(wt.cwd, f)));
    if (changed.length > 0) {
      // `conflict-marker-size` per path (`path: conflict-marker-size: N`, or `unspecified`).
      const attrs = await wt.lines(['check-attr', 'conflict-marker-size', '--', ...changed]);
      const sizes = new Map(attrs.map((line) => /^(.*): conflict-marker-size: (\d+)$/.exec(line)).flatMap((m) => (m ? [[m[1], Number(m[2])] as const] : [])));
      const left: string[] = [];
      for (const f of changed) if (hasMarkers(await readFile(join(wt.cwd, f), 'utf8'), sizes.get(f))) left.push(f);
      if (left.length > 0) return { ok: false, left };
    }
    return { ok: true, tree: await ctx.worktrees.writeTree(id) };
  } finally {
    wt.close();
  }
}

function toFileState(result: WorkingTreeFileResult): ConflictFileState {
  const resolved = result.resolutions.map((r, i) => ({
    index: r.hunkIndex ?? i + 1,
    status: 'resolved' as const,
    rung: r.rung,
    by: r.by,
    cacheKey: r.cacheKey ?? null,
  }));
  const remaining = result.remaining.map((h) => ({ index: h.index, status: 'needs_human' as const, rung: null, by: null, cacheKey: null }));
  return {
    path: result.path,
    kind: result.decision?.kind ?? 'content',
    hunks: [...resolved, ...remaining].sort((a, b) => a.index - b.index),
    decidedBy: result.decision?.resolution ? 'rule' : null,
  };
}
