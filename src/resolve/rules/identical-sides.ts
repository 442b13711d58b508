import type { ResolutionRule } from './rule.js';

/** Both sides made the same change: the hunk is that change. */
export const identicalSides: ResolutionRule = {
  name: 'identical-sides',
  description: 'both sides made exactly the same change',
  enabledByDefault: true,
  cost: 'linear',
  resolve: ({ ours, theirs }) => (ours === theirs ? ours : null),
};
