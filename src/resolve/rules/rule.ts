/** The three sides of one conflict hunk, as a rule sees them. */
export interface HunkSides {
  /** null when the hunk carries no base (merge-style markers). */
  base: string | null;
  ours: string;
  theirs: string;
}

export interface RuleContext {
  path: string;
  eol: '\n' | '\r\n';
  /**
   * The file's text outside this hunk (clean text and the other hunks as
   * written), for rules that must not duplicate what the file already has.
   * Absent when unknown; a rule then decides from the hunk alone.
   */
  outside?: string;
  /** The whole file on each side (null where a side has none), when known. */
  files?: { base: string | null; ours: string | null; theirs: string | null };
}

/**
 * A deterministic resolution rule: it returns the resolved text only when it is
 * certain, and null otherwise (the hunk stays a conflict for the next rung).
 */
export interface ResolutionRule {
  /** Stable name used in config (`resolve.rules.<name>`), reports and the cache. */
  name: string;
  description: string;
  /** On unless the corpus showed it wrong at least once (see `splintercat eval`). */
  enabledByDefault: boolean;
  resolve(sides: HunkSides, context: RuleContext): string | null;
}
