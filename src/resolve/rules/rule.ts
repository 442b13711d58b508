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
