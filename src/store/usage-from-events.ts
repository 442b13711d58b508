import type { RunEvent } from './run-events.js';
import { emptyUsage, type RunState } from './run-state.js';

/**
 * Usage totals per role from the journal's `model_usage` events. Every model call is
 * journalled as it is recorded, so this is the run's true spend even when a kill
 * lost the state written after the node that made the calls.
 */
export function usageFromEvents(events: readonly RunEvent[]): RunState['usage'] {
  const usage = { resolver: emptyUsage(), summarizer: emptyUsage(), planner: emptyUsage() };
  for (const e of events) {
    if (e.type !== 'model_usage') continue;
    const u = usage[e.role];
    u.calls += 1;
    u.inputTokens += e.inputTokens;
    u.outputTokens += e.outputTokens;
    u.costUsd += e.costUsd;
    if (e.costSource === 'unknown') u.unpricedCalls += 1;
  }
  return usage;
}
