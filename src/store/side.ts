/**
 * The two sides of a merge, as a person reads them: the fork the merge lands on and the upstream
 * merged into it. Git and git-imerge name them otherwise (ours and theirs, the first and second
 * tip), and the run state stores them as `target` and `source`; those spellings stay only where
 * those are read or written.
 */
export const SIDES = ['fork', 'upstream'] as const;
export type Side = (typeof SIDES)[number];
