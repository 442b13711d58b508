import type { LearntCounts } from './learnt-counts.js';

/** Counts for one rule (or the whole ladder) over an evaluation. */
export interface HunkCounts {
  /** Hunks resolved. */
  resolved: number;
  /** Resolved and identical to the person's text for that hunk. */
  exact: number;
  /** Resolved and equal to the person's text after whitespace normalisation (includes exact). */
  whitespaceMatch: number;
  /** Resolved and right: the person's text for the hunk, ignoring whitespace (the same count as `whitespaceMatch`). */
  equal: number;
  /**
   * Resolved and the same as the person's hunk only up to the order of
   * unordered siblings (class members, test cases, mapping keys): counted
   * apart, neither equal nor wrong (a reviewer sees the order in the diff).
   */
  orderOnly: number;
  /** Resolved and not equal to the person's text for the hunk (or, unaligned, found nowhere in their file). */
  wrong: number;
  /** Resolved, the person's text for the hunk could not be located, and the file may contain the resolution. */
  unaligned: number;
  /** Resolved hunks missing a line one side added that the person kept. */
  sidesDropped: number;
}

export interface FileCounts {
  seen: number;
  /** Every hunk resolved (or the file-level conflict decided). */
  resolved: number;
  exact: number;
  whitespaceMatch: number;
  /** Resolved and right: the person's file, ignoring whitespace (the same count as `whitespaceMatch`). */
  equal: number;
  /** Resolved and the person's file only up to the order of unordered siblings: counted apart. */
  orderOnly: number;
  wrong: number;
  /**
   * Resolved, but the person also edited lines outside the conflicts, so no
   * resolution of the hunks could equal their file: reported apart, counted
   * neither equal nor wrong.
   */
  outsideEdited: number;
  /** Resolved files that drop a line of a side's change the person's own resolution kept (the survival audit). */
  dropsKept: number;
}

export interface EvalReport {
  source: string;
  cases: number;
  hunksSeen: number;
  files: FileCounts;
  /** Files by language (from the file name). */
  filesByLanguage: Record<string, FileCounts>;
  /** Files by kind: content (all three versions), add/add (no base), one side deleted (modify/delete). */
  filesByKind: Record<string, FileCounts>;
  /** Resolved files by the last rung that took one of its hunks (file-level decisions: `file`). */
  filesByRung: Record<string, FileCounts>;
  /** The ladder's hunks by language. */
  hunksByLanguage: Record<string, HunkCounts & { seen: number }>;
  /** The configured ladder; `byRule` attributes each hunk to the rule that took it. */
  ladder: HunkCounts;
  byRule: Record<string, HunkCounts>;
  /** Each rule alone on every hunk, enabled or not: how the defaults were chosen. */
  standalone: Record<string, HunkCounts>;
  /** Rules the ladder ran. */
  enabledRules: string[];
  /** The resolved files that drop what the person kept, with who resolved them (the first ones: a finding each). */
  dropsKept?: Array<{ id: string; by: string }>;
  /** Cases that could not be evaluated, with why. */
  skipped: Array<{ id: string; reason: string }>;
  /**
   * What the person wrote for the hunks the ladder left (`PersonChoice`), and
   * the content files the ladder left by what the person did with them: the
   * ground a further rule could still cover.
   */
  left: { hunks: Record<string, number>; files: Record<string, number> };
  model?: { hunksResolved: number; inputTokens: number; outputTokens: number; costUsd: number };
  /** Suggestions learnt from earlier merges, scored on the hunks the ladder left (`eval --learnt`). */
  learnt?: LearntCounts;
}

export function emptyHunkCounts(): HunkCounts {
  return { resolved: 0, exact: 0, whitespaceMatch: 0, equal: 0, orderOnly: 0, wrong: 0, unaligned: 0, sidesDropped: 0 };
}

export function emptyFileCounts(): FileCounts {
  return {
    ...{ seen: 0, resolved: 0, exact: 0, whitespaceMatch: 0, equal: 0 },
    ...{ orderOnly: 0, wrong: 0, outsideEdited: 0, dropsKept: 0 },
  };
}
