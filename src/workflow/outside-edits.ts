import type { Git } from '../git/index.js';
import type { PathChange } from '../git/worktree-snapshot.js';
import type { Cell } from '../imerge/cell.js';
import { mergeTree } from '../imerge/merge-tree.js';
import type { ConflictState } from '../store/run-state.js';
import type { Ctx } from './nodes/common.js';
import type { GridEngine } from './ports.js';

/**
 * The files a person changed at a hand-off beyond the conflict's own files: what differs between the tree they
 * left and the merge the hand-off checked out (the cell's two parents merged, conflicts in markers), less the
 * conflicted paths. They are kept in the resolution, checked with it, and recorded as the person's. Empty when
 * the parents cannot be merged now (their cells not recorded yet).
 */
async function outsideEditsOf(
  git: Git,
  engine: Pick<GridEngine, 'conflictCell'>,
  cell: Cell,
  tree: string,
  conflictPaths: readonly string[],
): Promise<string[]> {
  const parents = await engine.conflictCell(cell).catch(() => null);
  if (parents === null) return [];
  const merged = await mergeTree(git, parents.above, parents.left);
  const changed = (await git.run(['diff-tree', '-r', '--name-only', '-z', merged.tree, tree])).stdout
    .split('\0')
    .filter(Boolean);
  const own = new Set(conflictPaths);
  return changed.filter((path) => !own.has(path));
}

/**
 * The person's edits beyond conflict `c` in the tree they left, said in the decision log; [] when none.
 * `sinceHandoff` (what changed in the worktree since the hand-off snapshot) is the exact answer where one
 * was taken; without it, the tree is compared with its parents' merge.
 */
export async function personsOutsideEdits(
  ctx: Pick<Ctx, 'git' | 'log'>,
  engine: Pick<GridEngine, 'conflictCell'>,
  c: ConflictState,
  tree: string,
  sinceHandoff?: readonly PathChange[],
): Promise<string[]> {
  const own = new Set(c.files.map((f) => f.path));
  const edits =
    sinceHandoff !== undefined
      ? [...new Set(sinceHandoff.map((p) => p.path))].filter((path) => !own.has(path))
      : await outsideEditsOf(ctx.git, engine, c.cell, tree, [...own]);
  if (edits.length > 0)
    ctx.log.decision(
      { cell: c.id, outsideEdits: edits },
      `[person] ${c.id}: also changed ${edits.length} file(s) beyond the conflict (${edits.slice(0, 5).join(', ')}${edits.length > 5 ? ', ...' : ''}): kept in the resolution, checked with it, recorded as the person's`,
    );
  return edits;
}
