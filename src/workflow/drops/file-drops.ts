import type { FileAudit, SideAudit } from '../../resolve/audit/index.js';
import type { FileDrops, SideDrops } from '../../store/drops-state.js';

/** Lines of each side kept in the run state per file: enough to say what was lost; the counts stay exact. */
const MAX_KEPT_LINES = 8;

function sideDrops(side: SideAudit): SideDrops | undefined {
  if (side.dropped + side.restored + side.rewritten === 0) return undefined;
  const lines: SideDrops['lines'] = [];
  for (const hunk of side.losses) {
    for (const l of hunk.dropped) lines.push({ kind: 'dropped', line: l.line, text: l.text });
    for (const l of hunk.rewritten) lines.push({ kind: 'rewritten', line: l.line, text: l.text });
    for (const l of hunk.restored) lines.push({ kind: 'restored', line: l.line, text: l.text });
  }
  const file = side.deletedFile ? 'deletion-undone' : side.resolvedDeleted ? 'file-deleted' : undefined;
  return {
    dropped: side.dropped,
    restored: side.restored,
    rewritten: side.rewritten,
    ...(file ? { file } : {}),
    lines: lines.slice(0, MAX_KEPT_LINES),
  };
}

/** What the run keeps of a file's audit: the sides that lost something; undefined when neither did. */
export function fileDrops(audit: FileAudit): FileDrops | undefined {
  if (audit.skipped !== null) return { skipped: audit.skipped };
  const ours = sideDrops(audit.ours);
  const theirs = sideDrops(audit.theirs);
  if (!ours && !theirs) return undefined;
  return { ...(ours ? { ours } : {}), ...(theirs ? { theirs } : {}) };
}

/** Lines a side lost in all (dropped, restored, rewritten). */
export function lostCount(side: SideDrops | undefined): number {
  return side ? side.dropped + side.restored + side.rewritten : 0;
}
