import type { ConflictedFile, ConflictHunk, Segment } from '../types.js';
import { detectEol, splitLinesKeep, stripEol } from './lines.js';

export interface ParseOptions {
  /** Path reported in the result (not read). */
  path?: string;
  /** Marker length (`conflict-marker-size`); detected from the text when omitted. */
  markerSize?: number;
}

const DEFAULT_MARKER_SIZE = 7;

/**
 * Parse a file holding conflict markers in any style git writes (merge, diff3,
 * zdiff3, any `conflict-marker-size`, LF or CRLF, with or without labels).
 * Unterminated or malformed marker hunks stay clean text, so
 * `printConflictedFile(parseConflictText(x)) === x` for every input.
 */
export function parseConflictText(text: string, options: ParseOptions = {}): ConflictedFile {
  const lines = splitLinesKeep(text);
  const size = options.markerSize ?? detectMarkerSize(lines);
  const start = '<'.repeat(size);
  const mid = '|'.repeat(size);
  const sep = '='.repeat(size);
  const end = '>'.repeat(size);
  const segments: Segment[] = [];
  const hunks: ConflictHunk[] = [];
  let textBuf = '';
  const flushText = (): void => {
    if (textBuf !== '') segments.push({ kind: 'text', text: textBuf });
    textBuf = '';
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    const label = markerLabel(stripEol(line), start);
    if (label === undefined) {
      textBuf += line;
      i++;
      continue;
    }
    const hunk = readHunk(lines, i, { start, mid, sep, end }, label);
    if (hunk === null) {
      textBuf += line;
      i++;
      continue;
    }
    flushText();
    const h: ConflictHunk = { ...hunk.hunk, index: hunks.length + 1 };
    hunks.push(h);
    segments.push({ kind: 'conflict', hunk: h });
    i = hunk.next;
  }
  flushText();
  return { path: options.path ?? '', segments, hunks, eol: detectEol(text), markerSize: size };
}

interface Markers {
  start: string;
  mid: string;
  sep: string;
  end: string;
}

/** The label after a marker (`''` when none); undefined when the line is not that marker. */
function markerLabel(content: string, marker: string): string | undefined {
  if (!content.startsWith(marker)) return undefined;
  const rest = content.slice(marker.length);
  if (rest === '') return '';
  if (rest.startsWith(' ')) return rest.slice(1);
  return undefined;
}

function readHunk(
  lines: string[],
  at: number,
  m: Markers,
  oursLabel: string,
): { hunk: Omit<ConflictHunk, 'index'>; next: number } | null {
  let section: 'ours' | 'base' | 'theirs' = 'ours';
  let ours = '';
  let base: string | null = null;
  let theirs = '';
  let baseLabel: string | undefined;
  let raw = lines[at] as string;
  for (let j = at + 1; j < lines.length; j++) {
    const line = lines[j] as string;
    const content = stripEol(line);
    // A new start marker inside an open hunk means the hunk is malformed: leave it as text.
    if (markerLabel(content, m.start) !== undefined) return null;
    raw += line;
    if (section === 'ours') {
      const l = markerLabel(content, m.mid);
      if (l !== undefined) {
        section = 'base';
        base = '';
        baseLabel = l;
        continue;
      }
    }
    if ((section === 'ours' || section === 'base') && content === m.sep) {
      section = 'theirs';
      continue;
    }
    if (section === 'theirs') {
      const l = markerLabel(content, m.end);
      if (l !== undefined) {
        const labels: ConflictHunk['labels'] = {};
        if (oursLabel !== '') labels.ours = oursLabel;
        if (baseLabel !== undefined && baseLabel !== '') labels.base = baseLabel;
        if (l !== '') labels.theirs = l;
        return {
          hunk: { startLine: at + 1, endLine: j + 1, base, ours, theirs, labels, raw },
          next: j + 1,
        };
      }
    }
    if (section === 'ours') ours += line;
    else if (section === 'base') base += line;
    else theirs += line;
  }
  return null;
}

/**
 * The marker size used in the text: the largest run of `<` (7 or more) that
 * opens a hunk with a matching `=` separator and `>` end. Git writes longer
 * markers exactly when the content itself holds 7-character ones.
 */
export function detectMarkerSize(lines: string[]): number {
  const candidates = new Set<number>();
  for (const line of lines) {
    const match = /^(<{7,})(?: |\r?\n?$)/.exec(line);
    if (match) candidates.add((match[1] as string).length);
  }
  const sorted = [...candidates].sort((a, b) => b - a);
  for (const n of sorted) {
    const sep = '='.repeat(n);
    const endRe = new RegExp(`^>{${n}}(?: |\\r?\\n?$)`);
    if (
      lines.some((l) => stripEol(l) === sep) &&
      lines.some((l) => endRe.test(l) && !l.startsWith('>'.repeat(n + 1)))
    ) {
      return n;
    }
  }
  return DEFAULT_MARKER_SIZE;
}

/**
 * True when the text has a conflict-marker line of `markerSize`: `<<<<<<<`, `|||||||` or `>>>>>>>`
 * (alone or before a label), or, with `separator`, a lone `=======`. The separator is opt-in because
 * in prose it is a heading underline (Markdown, RST); in code it is never legitimate.
 */
export function hasMarkers(
  text: string,
  markerSize = DEFAULT_MARKER_SIZE,
  options: { separator?: boolean } = {},
): boolean {
  const n = markerSize;
  const separator = options.separator ? `|^={${n}}\\r?$` : '';
  return new RegExp(`^(?:<{${n}}|\\|{${n}}|>{${n}})(?: |\\r?$)${separator}`, 'm').test(text);
}

/** Print a parsed file back: the exact input when nothing was changed. */
export function printConflictedFile(file: ConflictedFile): string {
  return file.segments.map((s) => (s.kind === 'text' ? s.text : s.hunk.raw)).join('');
}

/**
 * Print a file with some hunks replaced by their resolution text (keyed by the
 * hunk's 1-based index); hunks without a resolution keep their markers as read.
 */
export function printWithResolutions(file: ConflictedFile, resolved: ReadonlyMap<number, string>): string {
  return file.segments
    .map((s) => {
      if (s.kind === 'text') return s.text;
      const r = resolved.get(s.hunk.index);
      return r === undefined ? s.hunk.raw : r;
    })
    .join('');
}

/**
 * The file without one hunk: clean text and the other hunks as written, the
 * hunk itself left out (what a rule sees as "the rest of the file").
 */
export function printOutsideHunk(file: ConflictedFile, index: number): string {
  return file.segments.map((s) => (s.kind === 'text' ? s.text : s.hunk.index === index ? '' : s.hunk.raw)).join('');
}
