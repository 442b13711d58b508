import * as z from 'zod';

/**
 * The rungs of the resolution ladder that record a hunk's resolution, from the least to the most
 * involved: the one list the resolver, the run state, the cache and the report use.
 */
export const RUNGS = ['cache', 'policy', 'rule', 'model', 'human'] as const;
export type Rung = (typeof RUNGS)[number];
export const rungSchema = z.enum(RUNGS);
