import { splitLinesKeep } from '../parse/lines.js';
import { diffRegions } from './myers-diff.js';

/** Lines that carry content, compared ignoring whitespace (a blank or a lone `}` says nothing about a move). */
function contentLines(text: string): string[] {
  return splitLinesKeep(text)
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => /[\p{L}\p{N}]/u.test(l));
}

/**
 * True when `outer`, beyond what `inner` has, writes a line that `inner`
 * deleted from `base`: `inner` dropped the line where `outer` moved or kept it,
 * a move against a delete, which no containment settles (werkzeug history: a
 * `versionadded` note one side moved below a docstring line and the other
 * removed; the maintainer removed it).
 */
export function restoresDeletedLine(base: string, inner: string, outer: string): boolean {
  const innerLines = contentLines(inner);
  const kept = new Set(innerLines);
  const deleted = new Set(contentLines(base).filter((l) => !kept.has(l)));
  if (deleted.size === 0) return false;
  const outerLines = contentLines(outer);
  const regions = diffRegions(innerLines, outerLines);
  if (regions === null) return true;
  return regions.some((r) => outerLines.slice(r.bStart, r.bStart + r.bLength).some((l) => deleted.has(l)));
}

/** The share of `base`'s content lines that `side` kept in order (0 when too different to diff cheaply). */
function keptShare(base: readonly string[], side: readonly string[]): number {
  if (base.length === 0) return 1;
  const regions = diffRegions(base, side);
  if (regions === null) return 0;
  return (base.length - regions.reduce((n, r) => n + r.aLength, 0)) / base.length;
}

/**
 * True when each side kept less than half of the base file: both rewrote it
 * (a regenerated Sphinx Makefile, a refreshed template). One rewrite holding
 * the other's text is then a coincidence of two versions of the same file, not
 * one edit going further than another: which is newer, no hunk tells
 * (werkzeug history: both sides regenerated `docs/Makefile`, one without a
 * `SPHINXPROJ` line, and the maintainer took that one).
 */
export function bothRewroteFile(files: { base: string | null; ours: string | null; theirs: string | null }): boolean {
  if (files.base === null || files.ours === null || files.theirs === null) return false;
  const base = contentLines(files.base);
  return keptShare(base, contentLines(files.ours)) < 0.5 && keptShare(base, contentLines(files.theirs)) < 0.5;
}
