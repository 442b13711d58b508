import { formatDuration, formatTime } from './format.js';
import type { EstimateView, ReportModel } from './model.js';

/** The strategy used and each switch: `per_conflict (batch(8) -> per_conflict at 14:02)`. */
export function strategyWords(model: ReportModel): string {
  const s = model.run.strategy;
  if (!s) return 'not chosen yet';
  const now = `${s.kind}${s.batchSize ? `(${s.batchSize})` : ''} by ${s.decidedBy}`;
  const steps = model.strategies;
  if (steps.length < 2) return now;
  return `${now} (switched ${steps.length - 1} time(s): ${steps.map((x) => `${x.strategy} at ${formatTime(x.at)}`).join(' -> ')})`;
}

/** Each switch of strategy with its reason, one line each. */
export function switchLines(model: ReportModel): string[] {
  return model.strategies
    .slice(1)
    .map((x) => `switched to ${x.strategy} at ${formatTime(x.at)} (${x.by}): ${x.reasoning}`);
}

function range(e: EstimateView): string {
  if (e.high === null) return `~${e.expected} (at least ${e.low})`;
  return e.low === e.high ? `${e.expected}` : `~${e.expected} (${e.low}-${e.high})`;
}

function leftText(e: EstimateView): string {
  if (e.leftMs === null) return 'unknown';
  const person = e.personCounted ? '' : e.handoffsLeft > 0 ? ` + the person on ~${e.handoffsLeft} hand-off(s)` : '';
  return `${formatDuration(e.leftMs)}${person}`;
}

/** How far an estimate was from what happened: `1.12x`. */
function ratio(estimate: number, actual: number): string {
  return actual > 0 ? `${(estimate / actual).toFixed(2)}x` : '-';
}

/** The estimates made at hand-offs against what happened, as table rows (header first). */
export function estimateRows(model: ReportModel): string[][] {
  return [
    ['Hand-off', 'Made', 'Done then', 'Conflicts expected', 'Conflicts in all', 'Time left estimated', 'Time it took'],
    ...model.estimates.map((e) => [
      `#${e.handoff}`,
      formatTime(e.at),
      `${e.done}`,
      range(e),
      e.actualConflicts === null ? 'not ended' : `${e.actualConflicts} (${ratio(e.expected, e.actualConflicts)})`,
      leftText(e),
      e.actualLeftMs === null
        ? 'not ended'
        : `${formatDuration(e.actualLeftMs)}${e.leftMs !== null ? ` (${ratio(e.leftMs, e.actualLeftMs)})` : ''}`,
    ]),
  ];
}
