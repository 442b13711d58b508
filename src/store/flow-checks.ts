import * as z from 'zod';
import { cellSchema } from './state-primitives.js';

/** The last failing check: the cell it ran on, and how it ended. */
const lastCheckSchema = z.object({
  cell: cellSchema,
  name: z.string(),
  success: z.boolean(),
  logFile: z.string(),
  command: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number().nonnegative(),
  /** The directory it ran in (paths in its log are shown relative to it). */
  cwd: z.string().optional(),
  /** The tests blamed on the resolutions, and why (the baseline comparison). */
  blamed: z.array(z.string()).optional(),
  judgement: z.string().optional(),
});
export type LastCheck = z.infer<typeof lastCheckSchema>;

/**
 * The checks' progress over the resolutions: what is under test, what passed, what passed only
 * fast checks, the last failure, and whether the final merge passed. Written by the check,
 * finalize and recovery nodes (and reset by the planner for a new attempt).
 */
export const checkProgressSchema = z.object({
  /** Conflict ids resolved since the last passing check (the batch under test). */
  batch: z.array(z.string()).optional(),
  /** Conflict ids whose resolution passed a check. */
  validated: z.array(z.string()).optional(),
  /**
   * Resolutions that passed only fast checks (`check.fast`, or the checks their files selected), or
   * none (no compiled byte changed), since the last full check: with the checks each ran. The next
   * full check covers them; a failure of a check one of them did not run suspects it too.
   */
  fastOnly: z.array(z.object({ conflict: z.string(), checks: z.array(z.string()) })).optional(),
  /** The cell the last failing check ran on, and how it ended. */
  lastCheck: lastCheckSchema.optional(),
  /** True once the final cell passed every workflow check. */
  finalValidated: z.boolean().optional(),
});

/** A state holding this sub-record in its `data` (flow-data.ts). */
type Holder = { data: { checks?: z.infer<typeof checkProgressSchema> } };

/** The checks' progress with every list present (an absent one is empty). */
export interface CheckProgress {
  batch: string[];
  validated: string[];
  fastOnly: Array<{ conflict: string; checks: string[] }>;
  lastCheck: LastCheck | null;
  finalValidated: boolean;
}

/** The checks' progress of a run. */
export function checkProgress(state: Holder): CheckProgress {
  const p = state.data.checks ?? {};
  return {
    batch: p.batch ?? [],
    validated: p.validated ?? [],
    fastOnly: p.fastOnly ?? [],
    lastCheck: p.lastCheck ?? null,
    finalValidated: p.finalValidated ?? false,
  };
}

/** The state with some of its checks' progress replaced (a null `lastCheck` removes it). */
export function withCheckProgress<S extends Holder>(state: S, patch: Partial<CheckProgress>): S {
  const { lastCheck, ...rest } = patch;
  const checks = { ...state.data.checks, ...rest };
  if (lastCheck === null) delete checks.lastCheck;
  else if (lastCheck !== undefined) checks.lastCheck = lastCheck;
  return { ...state, data: { ...state.data, checks } };
}
