import type { Git } from '../../git/index.js';
import type { Logger } from '../../log/logger.js';
import type { ConflictFileState } from '../../store/run-state.js';
import { auditMerge } from './audit-tree.js';
import { dropReason } from './drop-reason.js';
import { fileDrops } from './file-drops.js';

/** A resolved cell as the audit reads it: the fork's parent (`above`), upstream's (`left`), the resolution. */
export interface ResolvedCell {
  above: string;
  left: string;
  tree: string;
}

/**
 * The cell's files with what each resolution dropped of each side (`drops`), or as they were when
 * the audit could not run: the audit informs, it never stops a merge.
 */
export async function withCellDrops(
  git: Git,
  cell: ResolvedCell,
  files: readonly ConflictFileState[],
  log: Logger,
): Promise<ConflictFileState[]> {
  try {
    const versions = { base: null, ours: cell.above, theirs: cell.left, resolved: cell.tree };
    const audits = await auditMerge(
      git,
      versions,
      files.map((f) => f.path),
    );
    const byPath = new Map(audits.map((a) => [a.path, fileDrops(a)]));
    return files.map(({ drops: _earlier, ...f }) => {
      const drops = byPath.get(f.path);
      return drops ? { ...f, drops } : f;
    });
  } catch (error) {
    log.warn({ err: error }, 'the survival audit of a resolution could not run; its drops are not recorded');
    return [...files];
  }
}

/** The files whose resolution drops a side's change with no recorded reason (see `dropReason`). */
export function unreasonedDrops(files: readonly ConflictFileState[]): ConflictFileState[] {
  return files.filter((f) => f.drops !== undefined && !f.drops.skipped && dropReason(f) === null);
}
