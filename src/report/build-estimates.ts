import type { RunEvent } from '../store/run-events.js';
import type { RunState } from '../store/run-state.js';
import type { EstimateView, StrategyStep } from './model.js';

/** Each strategy the run used, in order, with who chose it and why (the numbers behind a switch included). */
export function buildStrategies(events: readonly RunEvent[]): StrategyStep[] {
  return events.flatMap((e) =>
    e.type === 'decision' && e.kind === 'strategy'
      ? [
          {
            at: e.ts,
            strategy: e.batchSize ? `${e.decision}(${e.batchSize})` : e.decision,
            by: e.by,
            reasoning: e.reasoning,
          },
        ]
      : [],
  );
}

/**
 * Each estimate journalled at a hand-off against what happened: the conflicts the run met in all and
 * the time it took from that hand-off to the end, once it ended (null while it runs).
 */
export function buildEstimates(state: RunState, events: readonly RunEvent[]): EstimateView[] {
  const done = state.status === 'done';
  const endedAt = done ? Date.parse(state.updatedAt) : null;
  return events.flatMap((e) =>
    e.type === 'estimate'
      ? [
          {
            handoff: e.handoff,
            at: e.ts,
            done: e.done,
            expected: e.conflicts.expected,
            low: e.conflicts.low,
            high: e.conflicts.high,
            leftMs: e.leftMs,
            personCounted: e.parts !== null && e.parts.personMs !== null,
            handoffsLeft: e.handoffsLeft,
            actualConflicts: done ? state.conflicts.length : null,
            actualLeftMs: endedAt === null ? null : Math.max(0, endedAt - Date.parse(e.ts)),
          },
        ]
      : [],
  );
}
