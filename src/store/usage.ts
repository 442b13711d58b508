import type { RunEvent } from './run-events.js';
import { emptyUsage, type RunState, type UsageTotalsState } from './run-state.js';

/** Calls, tokens and cost summed: the one way usage is added up (per role, per conflict, per run). */
export type UsageTotals = UsageTotalsState;

/** One model call's usage, as the tracker records it and the journal's `model_usage` event holds it. */
export interface UsageCall {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Where the cost came from; 'unknown' counts as an unpriced call. */
  costSource: 'reported' | 'price' | 'unknown';
}

/** Add one call to `totals` (in place). */
export function addCall(totals: UsageTotals, call: UsageCall): void {
  totals.calls += 1;
  totals.inputTokens += call.inputTokens;
  totals.outputTokens += call.outputTokens;
  totals.costUsd += call.costUsd;
  if (call.costSource === 'unknown') totals.unpricedCalls += 1;
}

/** Add totals `more` to `totals` (in place). */
export function addTotals(totals: UsageTotals, more: UsageTotals): void {
  totals.calls += more.calls;
  totals.inputTokens += more.inputTokens;
  totals.outputTokens += more.outputTokens;
  totals.costUsd += more.costUsd;
  totals.unpricedCalls += more.unpricedCalls;
}

/** The sum of several totals (e.g. the three roles of a run). */
export function sumUsage(parts: Iterable<UsageTotals>): UsageTotals {
  const sum = emptyUsage();
  for (const part of parts) addTotals(sum, part);
  return sum;
}

type ModelUsageEvent = Extract<RunEvent, { type: 'model_usage' }>;

/** The totals of the journal's `model_usage` events that `include` accepts (all by default). */
export function usageOfEvents(
  events: readonly RunEvent[],
  include: (e: ModelUsageEvent) => boolean = () => true,
): UsageTotals {
  const totals = emptyUsage();
  for (const e of events) if (e.type === 'model_usage' && include(e)) addCall(totals, e);
  return totals;
}

/**
 * Usage totals per role from the journal's `model_usage` events. Every model call is
 * journalled as it is recorded, so this is the run's true spend even when a kill
 * lost the state written after the node that made the calls.
 */
export function usageFromEvents(events: readonly RunEvent[]): RunState['usage'] {
  return {
    resolver: usageOfEvents(events, (e) => e.role === 'resolver'),
    reviewer: usageOfEvents(events, (e) => e.role === 'reviewer'),
    summarizer: usageOfEvents(events, (e) => e.role === 'summarizer'),
    planner: usageOfEvents(events, (e) => e.role === 'planner'),
  };
}
