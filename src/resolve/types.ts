import type { Rung } from '../store/rung.js';
/**
 * The conflict model shared by the ladder (`resolve/`), the agents and the workflow.
 * A conflicted file is a sequence of clean text and conflict hunks; printing the
 * segments back gives the input byte for byte.
 */
export interface ConflictHunk {
  /** 1-based index of the hunk in its file. */
  index: number;
  /** 1-based line of the `<<<<<<<` marker (or of the hunk in stage-based parsing). */
  startLine: number;
  /** 1-based line of the `>>>>>>>` marker. */
  endLine: number;
  /** null when the markers carry no base section (merge style, not diff3). */
  base: string | null;
  ours: string;
  theirs: string;
  /** Marker labels as written (`HEAD`, `branch`, ...), when present. */
  labels: { ours?: string; base?: string; theirs?: string };
  /** The exact text of the hunk including markers (for round-trip). */
  raw: string;
}

export type Segment = { kind: 'text'; text: string } | { kind: 'conflict'; hunk: ConflictHunk };

export interface ConflictedFile {
  path: string;
  segments: Segment[];
  hunks: ConflictHunk[];
  /** `\r\n` when the file uses CRLF line endings. */
  eol: '\n' | '\r\n';
  markerSize: number;
}

/** Which rung of the ladder produced a resolution. */
export type { Rung };

export interface HunkResolution {
  /** The text replacing the hunk (markers removed). */
  text: string;
  rung: Rung;
  /** The rule's name for rung 'rule'; the model id for 'model'. */
  by: string;
  /** 1-based index of the hunk this resolves (set by the ladder). */
  hunkIndex?: number;
  /** Cache key of the hunk (set by the ladder when a cache is in use). */
  cacheKey?: string;
}

export type { FileConflictKind } from '../imerge/types.js';
