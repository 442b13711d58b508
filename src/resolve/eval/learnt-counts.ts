/** `apply` at one threshold: the suggestions it would take without asking, and how many were not the person's. */
interface ApplyRow {
  threshold: number;
  minMerges: number;
  applied: number;
  equal: number;
  /** Applied, and the person wrote something else (another side, other text). */
  wrong: number;
}

/**
 * Suggestions learnt from earlier merges, scored on the hunks the ladder left: how many get one,
 * how many of those equal what the person wrote, by basis, and what `apply` would take at each threshold.
 */
export interface LearntCounts {
  /** Hunks the ladder left (with a person's file to compare with). */
  left: number;
  /** ... where the person kept one side or both. */
  kept: number;
  suggested: number;
  /** Suggested where the person kept one side or both. */
  suggestedKept: number;
  /** The suggestion is what the person wrote. */
  equal: number;
  /** Suggested where the person's text for the hunk could not be located (neither equal nor wrong). */
  unaligned: number;
  /** `combinedToo`: for combinations, where the person's text also kept lines of both sides (equal or edited). */
  byBasis: Record<string, { suggested: number; equal: number; combinedToo?: number }>;
  apply: ApplyRow[];
  /** Cases that could not be placed in time (no merge date): nothing learnt from or suggested for them. */
  undated: number;
}

const THRESHOLDS = [0.6, 0.8, 0.9, 1];
const MIN_MERGES = [1, 2, 3, 4, 5];

export function emptyLearntCounts(): LearntCounts {
  return {
    left: 0,
    kept: 0,
    suggested: 0,
    suggestedKept: 0,
    equal: 0,
    unaligned: 0,
    byBasis: {},
    apply: THRESHOLDS.flatMap((threshold) =>
      MIN_MERGES.map((minMerges) => ({ threshold, minMerges, applied: 0, equal: 0, wrong: 0 })),
    ),
    undated: 0,
  };
}
