/**
 * The two sides of a merge, as a person reads them: the fork the merge lands on and the upstream
 * merged into it. Git and git-imerge name them otherwise (ours and theirs, the first and second
 * tip). The run state stores them as `fork` and `upstream`; earlier versions stored `target` and
 * `source`, read through old-spellings.ts, and the merge note keeps those keys.
 */
export const SIDES = ['fork', 'upstream'] as const;
export type Side = (typeof SIDES)[number];
