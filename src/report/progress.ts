import { cellId } from '../imerge/cell.js';
import {
  addTiming,
  emptyTimings,
  expectedConflicts,
  expectedWords,
  gridSampleOf,
  timeLeft,
  timeLeftParts,
  timingsFrom,
  type TimingTally,
} from '../workflow/estimate.js';
import { workLeft } from '../workflow/layers-left.js';
import type { RunEvent } from '../store/run-events.js';
import type { RunState } from '../store/run-state.js';
import { formatDuration } from './format.js';
import type { ProgressView } from './model.js';
import { checkProgress } from '../store/flow-checks.js';

export type { ProgressView } from './model.js';

/** What the journal says about time, folded event by event (the driving process keeps one up to date). */
export interface JournalTally {
  /** Milliseconds of every finished node: the time the run worked (a person's time is between runs). */
  nodesMs: number;
  /** Milliseconds of the nodes that resolve and check conflicts (not the first checks, the planning or finishing). */
  conflictWorkMs: number;
  /** The node being run, when it started (null between runs). */
  nodeStartedAt: string | null;
  /** The check running, when one is. */
  check: { name: string; cell: string | null; startedAt: string } | null;
  /** Conflicts met and conflicts resolved (not blamed since), as journalled: ahead of the state inside a long node. */
  met: ReadonlySet<string>;
  resolved: ReadonlySet<string>;
  /** What each part of the work measured: check runs, the person's waits, hand-offs. */
  timing: TimingTally;
}

const conflictNodes = new Set(['resolve_conflicts', 'check', 'summarize_failure', 'plan_recovery', 'execute_recovery']);

export function emptyTally(): JournalTally {
  return {
    nodesMs: 0,
    conflictWorkMs: 0,
    nodeStartedAt: null,
    check: null,
    met: new Set(),
    resolved: new Set(),
    timing: emptyTimings(),
  };
}

/** The tally after one more event. */
export function addEvent(tally: JournalTally, e: Pick<RunEvent, 'type' | 'ts'> & Partial<RunEvent>): JournalTally {
  const event = e as RunEvent;
  const timing = addTiming(tally.timing, event);
  return timing === tally.timing ? addOther(tally, event) : addOther({ ...tally, timing }, event);
}

function addOther(tally: JournalTally, event: RunEvent): JournalTally {
  switch (event.type) {
    case 'node_entered':
      return { ...tally, nodeStartedAt: event.ts };
    case 'node_finished':
      return {
        ...tally,
        nodesMs: tally.nodesMs + event.durationMs,
        conflictWorkMs: tally.conflictWorkMs + (conflictNodes.has(event.node) ? event.durationMs : 0),
        nodeStartedAt: null,
      };
    case 'check_started':
      return {
        ...tally,
        check: { name: event.name, cell: event.cell ? cellId(event.cell) : null, startedAt: event.ts },
      };
    case 'check_finished': {
      // Checks on CI runners overlap (a tip's alongside a cell's): another check's end leaves this one shown.
      const cell = event.check.cell ? cellId(event.check.cell) : null;
      const same = tally.check?.name === event.check.name && tally.check.cell === cell;
      return same ? { ...tally, check: null } : tally;
    }
    case 'run_outcome':
      return { ...tally, check: null, nodeStartedAt: null };
    case 'conflict_found':
      return { ...tally, met: new Set([...tally.met, event.conflict]) };
    case 'conflict_resolved':
      return {
        ...tally,
        met: new Set([...tally.met, event.conflict]),
        resolved: new Set([...tally.resolved, event.conflict]),
      };
    case 'conflict_blamed':
      return { ...tally, resolved: new Set([...tally.resolved].filter((id) => id !== event.conflict)) };
    default:
      return tally;
  }
}

export function tallyEvents(events: readonly RunEvent[]): JournalTally {
  return events.reduce(addEvent, emptyTally());
}

/** The progress of a run: pure, from its state and the journal's tally. */
export function computeProgress(
  state: RunState,
  tally: JournalTally,
  options: { now: Date; live: boolean },
): ProgressView {
  const now = options.now.getTime();
  // Inside a long node the journal is ahead of the saved state: take the larger counts.
  const done = Math.max(state.conflicts.filter((c) => c.status === 'resolved').length, tally.resolved.size);
  const ids = new Set([...state.conflicts.map((c) => c.id), ...tally.met]);
  const open = ids.size - done;
  const unmet = (state.grid?.blockers ?? []).filter((b) => !ids.has(cellId(b))).length;
  const sample = gridSampleOf(state, tally.met);
  const range = expectedConflicts(sample);
  // Neither the grid nor the tips say anything yet: no count beyond those known (`left` says them).
  const expected = range.basis === 'known' ? null : range.expected;
  const running = options.live && state.status === 'running';
  const since = (at: string | null): number => (running && at ? Math.max(0, now - Date.parse(at)) : 0);
  const ended = running ? now : Date.parse(state.updatedAt);
  const prediction = state.strategy?.prediction ?? null;
  const remaining = Math.max(0, (expected ?? range.known) - done);
  const finalMs = checkProgress(state).finalValidated || state.status === 'done' ? 0 : (prediction?.fullMs ?? 0);
  const left = timeLeft(
    remaining,
    timingsFrom(tally.timing, done, ids.size, running ? options.now : undefined),
    finalMs,
    workLeft(sample, range),
  );
  // A finished run has no estimate left: its count is what it met, and no time is left.
  const finished = state.status === 'done';
  return {
    done,
    left: open + unmet,
    expected: finished ? null : expected,
    range: finished || expected === null ? null : { low: range.low, high: range.high },
    check:
      running && tally.check
        ? { name: tally.check.name, cell: tally.check.cell, elapsedMs: since(tally.check.startedAt) }
        : null,
    elapsedMs: Math.max(0, ended - Date.parse(state.startedAt)),
    activeMs: tally.nodesMs + since(tally.nodeStartedAt),
    checkMs: state.checks.reduce((t, c) => t + c.durationMs, 0),
    leftMs: finished ? 0 : (left?.ms ?? null),
    leftParts: finished ? null : left,
    predicted: prediction
      ? {
          strategy: state.strategy?.batchSize
            ? `${state.strategy.kind}(${state.strategy.batchSize})`
            : (state.strategy?.kind ?? '?'),
          ms: prediction.ms,
          conflicts: prediction.conflicts,
        }
      : null,
  };
}

/**
 * The progress as one line: `conflicts 12 done, 3 left, ~36 expected (range 30-44) | check build on 5-7 0:34 |
 * elapsed ... | ~35m left (run 5m, checks 28m, final checks 2m) + your time on ~4 hand-offs`.
 */
export function progressLine(p: ProgressView): string {
  const expected =
    p.expected === null
      ? ''
      : `, ${p.range ? expectedWords({ expected: p.expected, ...p.range }) : `~${p.expected} expected`}`;
  const parts = [
    `conflicts ${p.done} done, ${p.left} left${expected}`,
    p.check
      ? `check ${p.check.name}${p.check.cell ? ` on ${p.check.cell}` : ''} running ${formatDuration(p.check.elapsedMs)}`
      : 'no check running',
    `elapsed ${formatDuration(p.elapsedMs)} (worked ${formatDuration(p.activeMs)}, checks ${formatDuration(p.checkMs)})`,
    // Nothing left to do (a finished run, or one finishing): no "~0ms left".
    ...(p.leftMs === 0 && p.left === 0 ? [] : [leftWords(p)]),
  ];
  return parts.join(' | ');
}

/** The time left and what it counts; the person's time, until measured, named rather than guessed. */
function leftWords(p: ProgressView): string {
  if (p.leftMs === null) return 'time left: measured once a conflict is settled';
  const l = p.leftParts;
  if (!l) return `~${formatDuration(p.leftMs)} left`;
  const person =
    l.parts.personMs === null && l.handoffsLeft > 0 ? ` + your time on ~${l.handoffsLeft} hand-off(s)` : '';
  return `~${formatDuration(p.leftMs)} left (${timeLeftParts(l, formatDuration)})${person}`;
}
