import type { ConflictedFile } from '../resolve/types.js';

/**
 * Split a resolved file back into per-hunk texts, using the clean text between
 * hunks as anchors. Returns null when the model changed text outside the
 * conflict hunks (or anchors are ambiguous): then no hunk is taken from it.
 */
export function splitResolvedByHunks(file: ConflictedFile, resolved: string): Map<number, string> | null {
  const out = new Map<number, string>();
  let pos = 0;
  let pending: number | null = null;
  for (const seg of file.segments) {
    if (seg.kind === 'conflict') {
      if (pending !== null) return null;
      pending = seg.hunk.index;
      continue;
    }
    if (pending === null) {
      if (!resolved.startsWith(seg.text, pos)) return null;
      pos += seg.text.length;
      continue;
    }
    const at = resolved.indexOf(seg.text, pos);
    if (at < 0) return null;
    out.set(pending, resolved.slice(pos, at));
    pos = at + seg.text.length;
    pending = null;
  }
  if (pending !== null) {
    out.set(pending, resolved.slice(pos));
    pos = resolved.length;
  }
  return pos === resolved.length ? out : null;
}
