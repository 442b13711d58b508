import * as z from 'zod';
import { failureSummarySchema } from './failure-summary.js';

type FailureSummary = z.infer<typeof failureSummarySchema>;

/**
 * The recovery loop's memory: the failure each retried conflict is resolved again with, where the
 * retry budget counts from, and when the planner last predicted again. Written by the check,
 * execute_recovery and plan_strategy nodes.
 */
export const recoveryMemorySchema = z.object({
  /** The failure summary to hand to the resolver on retries, by conflict id. */
  retryContext: z.record(z.string(), failureSummarySchema).optional(),
  /** The attempt from which `merge.max_recoveries` counts (a check that passed starts the budget again). */
  retryBase: z.number().int().nonnegative().optional(),
  /** Cell checks measured when the planner last predicted again from them (plan-strategy.ts `replan`). */
  plannedAtChecks: z.number().int().nonnegative().optional(),
});

/** A state holding this sub-record in its `data` (flow-data.ts). */
type Holder = { data: { recovery?: z.infer<typeof recoveryMemorySchema> } };

export interface RecoveryMemory {
  retryContext: Record<string, FailureSummary>;
  retryBase: number;
  plannedAtChecks: number;
}

/** The recovery loop's memory of a run. */
export function recoveryMemory(state: Holder): RecoveryMemory {
  const r = state.data.recovery ?? {};
  return { retryContext: r.retryContext ?? {}, retryBase: r.retryBase ?? 0, plannedAtChecks: r.plannedAtChecks ?? 0 };
}

/** The state with some of the recovery loop's memory replaced. */
export function withRecoveryMemory<S extends Holder>(state: S, patch: Partial<RecoveryMemory>): S {
  return { ...state, data: { ...state.data, recovery: { ...state.data.recovery, ...patch } } };
}
