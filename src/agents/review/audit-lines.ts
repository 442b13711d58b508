import { auditFile, type SideAudit } from '../../resolve/audit/index.js';
import type { ConflictedFile } from '../../resolve/types.js';

/** One side of the conflicted file: its clean text with that side of every hunk (null without a base). */
function sideText(file: ConflictedFile, side: 'base' | 'ours' | 'theirs'): string | null {
  let out = '';
  for (const seg of file.segments) {
    if (seg.kind === 'text') out += seg.text;
    else {
      const text = seg.hunk[side];
      if (text === null) return null;
      out += text;
    }
  }
  return out;
}

function sideLines(name: string, side: SideAudit): string[] {
  return side.losses.flatMap((h) => [
    ...h.dropped.map((l) => `${name} line ${l.line} dropped: ${l.text}`),
    ...h.rewritten.map((l) => `${name} line ${l.line} rewritten as "${l.into}", losing ${l.lost.join(' ')}: ${l.text}`),
    ...h.restored.map((l) => `${name} removed base line ${l.line}, but it is back: ${l.text}`),
  ]);
}

/**
 * What the survival audit finds the resolution of a conflicted file lost from the fork and
 * upstream, one line each, for the reviewer; none when the markers carry no base.
 */
export function auditLinesFor(file: ConflictedFile, resolution: string): string[] {
  const base = sideText(file, 'base');
  if (base === null) return [];
  const audit = auditFile({
    path: file.path,
    base,
    ours: sideText(file, 'ours'),
    theirs: sideText(file, 'theirs'),
    resolved: resolution,
  });
  if (audit.skipped) return [];
  return [...sideLines('fork', audit.ours), ...sideLines('upstream', audit.theirs)];
}
