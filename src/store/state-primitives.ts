import * as z from 'zod';

/** The value types every run-state schema is built from. */
export const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'not an ISO date-time');
export const oid = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'not a full object id');
export const index = z.number().int().nonnegative();

/**
 * A cell `(i, j)` of the grid, fork commit i and upstream commit j, stored (in the state, the
 * journal and the shared records) as `i1` and `i2`.
 */
export const cellSchema = z.object({ i1: index, i2: index });
