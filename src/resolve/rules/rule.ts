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
 * What a rule costs on a hunk: `linear`, a comparison of the sides, still tried on a hunk too large
 * for the others (`size-limits.ts`); `superlinear`, a rule that tokenizes, diffs or runs a regular
 * expression that can backtrack, whose time or memory grows faster than the text, skipped there.
 */
type RuleCost = 'linear' | 'superlinear';

/**
 * Conflicts of two values that contain each other as text (a version and a longer one, a number
 * that prefixes another), on which a rule may decide rather than abstain: `dependency-pins`, the
 * higher of two pins of a dependency in a manifest; `release-sections`, both sides' new changelog
 * sections ordered by version. Every rule abstains on all the others (`adversarial.test.ts`).
 */
export type ContainedValues = 'dependency-pins' | 'release-sections';

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
  cost: RuleCost;
  /** The values containing each other that it may decide; none when absent. */
  decidesContained?: readonly ContainedValues[];
  resolve(sides: HunkSides, context: RuleContext): string | null;
}
