import type { PathChange } from '../git/worktree-snapshot.js';
import type { ConflictState } from '../store/run-state.js';
import type { Ctx } from './nodes/common.js';

/**
 * The files a person changed at a hand-off beyond conflict `c`'s own files, said in the decision log; [] when
 * none. They are kept in the resolution, checked with it, and recorded as the person's. `sinceHandoff` is
 * what changed in the worktree since the hand-off snapshot, which every hand-off takes (handoff/snapshot.ts):
 * only the person writes a worktree handed to them. A worktree handed off before snapshots were taken has
 * none: its files beyond the conflict are kept all the same, but none is claimed as the person's.
 */
export async function personsOutsideEdits(
  ctx: Pick<Ctx, 'log'>,
  c: ConflictState,
  sinceHandoff?: readonly PathChange[],
): Promise<string[]> {
  if (sinceHandoff === undefined) {
    ctx.log.decision(
      { cell: c.id, outsideEdits: null },
      `[person] ${c.id}: its worktree has no hand-off snapshot (handed off by an older splintercat): files changed beyond the conflict are kept, not recorded as the person's`,
    );
    return [];
  }
  const own = new Set(c.files.map((f) => f.path));
  const edits = [...new Set(sinceHandoff.map((p) => p.path))].filter((path) => !own.has(path));
  if (edits.length > 0)
    ctx.log.decision(
      { cell: c.id, outsideEdits: edits },
      `[person] ${c.id}: also changed ${edits.length} file(s) beyond the conflict (${edits.slice(0, 5).join(', ')}${edits.length > 5 ? ', ...' : ''}): kept in the resolution, checked with it, recorded as the person's`,
    );
  return edits;
}
