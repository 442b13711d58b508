import type { RunEvent } from '../store/run-events.js';
import type { CheckRecord, RunState } from '../store/run-state.js';

/**
 * Every check the run ran, in the order they finished: those the state keeps, plus any the
 * journal saw finish that the state does not hold (a check run to confirm a blame on a tip of
 * a cell, one of a node killed before its state was saved). The report counts and lists these,
 * so a check is never missing from `status` because a node did not keep it.
 */
export function allCheckRecords(state: RunState, events: readonly RunEvent[]): CheckRecord[] {
  const kept = new Set(state.checks.map((c) => `${c.logFile}\n${c.name}`));
  const extra: CheckRecord[] = [];
  for (const e of events) {
    if (e.type !== 'check_finished') continue;
    const key = `${e.check.logFile}\n${e.check.name}`;
    if (kept.has(key)) continue;
    kept.add(key);
    extra.push(e.check);
  }
  if (extra.length === 0) return state.checks;
  return [...state.checks, ...extra]
    .map((c, order) => ({ c, order }))
    .sort((a, b) => Date.parse(a.c.at) - Date.parse(b.c.at) || a.order - b.order)
    .map((x) => x.c);
}
