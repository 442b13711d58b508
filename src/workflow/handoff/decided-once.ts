import { join } from 'node:path';
import { mergeStages } from '../../resolve/cache/file-memory.js';
import { generatedFile } from '../../resolve/data/generated-files.js';
import { policyFor } from '../../resolve/policy/path-policy.js';
import { blobsId } from '../../resolve/take/hunk-numbers.js';
import { readWholeTakes } from '../../resolve/take/whole-takes.js';
import type { WholeFileDecision } from '../../store/flow-choices.js';
import type { ConflictState } from '../../store/run-state.js';
import type { Cell } from '../../imerge/cell.js';
import { fileHead } from '../../util/file-head.js';
import { withReachablePath } from '../../util/long-path.js';
import type { Ctx } from '../nodes/common.js';
import type { WholeFileChoice } from './whole-file.js';

/**
 * The paths of a conflict the person decided for the whole merge: each they took whole with
 * `splintercat take ours|theirs FILE` at these very three sides, and each generated file (a
 * lockfile, pip-compile output) they settled as one side's whole file, however they did it. A
 * path the fork's policy decides is left to the policy.
 */
export async function decidedOnceAt(
  ctx: Ctx,
  c: ConflictState,
  worktree: string,
  parents: { above: string; left: string },
  whole: ReadonlyMap<string, WholeFileChoice>,
): Promise<Record<string, WholeFileDecision>> {
  const out: Record<string, WholeFileDecision> = {};
  const paths = c.files.map((f) => f.path);
  const takes = await readWholeTakes(await worktreeGitDir(ctx, worktree));
  const stages = Object.keys(takes).length > 0 ? await mergeStages(ctx.git, parents.above, parents.left, paths) : null;
  for (const path of paths) {
    if (policyFor(path, ctx.ladder.policy ?? []) !== null) continue;
    const take = takes[path];
    const sides = stages?.get(path);
    const same = sides && take?.stages === blobsId([sides.base, sides.ours, sides.theirs]);
    const found = whole.get(path);
    const side = same ? take.choice : found !== 'deleted' && (await isGenerated(worktree, path)) ? found : undefined;
    if (side === 'ours' || side === 'theirs')
      out[path] = { side: side === 'ours' ? 'fork' : 'upstream', conflict: c.id };
  }
  return out;
}

/** The working tree's own git directory, where `take` keeps its records. */
async function worktreeGitDir(ctx: Ctx, worktree: string): Promise<string> {
  const wt = ctx.git.at(worktree);
  try {
    return await wt.gitDir(false);
  } finally {
    wt.close();
  }
}

/** Whether the person's file is generated: a lockfile by its name, or its tool's header. */
async function isGenerated(worktree: string, path: string): Promise<boolean> {
  const head = await withReachablePath(join(worktree, path), (p) => fileHead(p));
  return generatedFile(path, [head]) !== null;
}

/**
 * A cell's side, in words a person can follow: inside the grid a side is the cell merged before
 * it (carrying earlier resolutions), not the side's own commit, so "upstream's" file may be one
 * that upstream itself deleted.
 */
export function sideWords(cell: Cell, side: WholeFileDecision['side']): string {
  if (side === 'upstream')
    return cell.i1 === 1
      ? `upstream's side (upstream commit ${cell.i2} as it is)`
      : `upstream's side (cell ${cell.i1 - 1}-${cell.i2}: upstream commit ${cell.i2} with the merge so far)`;
  return cell.i2 === 1
    ? `the fork side (fork commit ${cell.i1} as it is)`
    : `the fork side (cell ${cell.i1}-${cell.i2 - 1}: fork commit ${cell.i1} with the merge so far)`;
}
