import type { ResolutionRule } from './rule.js';

/** One side left the region exactly as in the base: the other side's change wins. */
export const oneSideUnchanged: ResolutionRule = {
  name: 'one-side-unchanged',
  description: 'one side equals the base exactly; take the other side',
  enabledByDefault: true,
  cost: 'linear',
  resolve: ({ base, ours, theirs }) => {
    if (base === null) return null;
    if (ours === base) return theirs;
    if (theirs === base) return ours;
    return null;
  },
};
