import type { ConflictFileState } from '../../store/run-state.js';
import type { Ctx } from '../nodes/common.js';
import { withCellDrops, type ResolvedCell } from './cell-drops.js';
import { dropMessages } from './drop-text.js';

/**
 * The person's resolution audited as `continue` takes it, and what it drops of each side said on
 * the console before any check runs ("your resolution of `lib/router.js` drops 2 lines the fork
 * added: ..."), so a loss is seen while the person can still amend it.
 */
export async function shownDrops(
  ctx: Ctx,
  cell: ResolvedCell,
  files: readonly ConflictFileState[],
): Promise<ConflictFileState[]> {
  const audited = await withCellDrops(ctx.git, cell, files, ctx.log);
  for (const f of audited) for (const line of dropMessages(f.path, f.drops)) ctx.log.warn(line);
  return audited;
}
