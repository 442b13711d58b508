import { cellId } from '../imerge/cell.js';
import type { RunEvent } from '../store/run-events.js';
import type { RunState } from '../store/run-state.js';
import { tipFacts } from '../store/flow-tips.js';
import type { TimeLeft } from './time-left.js';
import { fitRunCost, type Stretch } from './run-cost.js';

/**
 * Estimates a person can plan by, computed from the whole job as the journal records it: the
 * conflicts still to come from the grid explored so far, and the time left from what each part
 * of the work (the run's own, the checks, the person's) has measured. Pure: the caller folds
 * the journal and passes the figures in.
 */

/** What the grid shows so far, row by row (a row is one fork commit, the first commit first). */
export interface GridSample {
  /** Fork commits (rows) and upstream commits (cells in a row). */
  size: { i1: number; i2: number };
  /** Per row, the cells explored so far (at or behind the frontier); null when the engine has not said (an older run). */
  filled: readonly number[] | null;
  /** The row of each blocked cell not merged yet (explored, not filled). */
  blockedRows: readonly number[];
  /** The row of each conflict known: every one met (resolved or open) and every blocked cell not met yet. */
  conflictRows: readonly number[];
  /** Conflicts the plain merge of the tips groups into; null when not measured. */
  tips: number | null;
}

export interface ConflictRange {
  /** Conflicts expected in all (never fewer than those known). */
  expected: number;
  /** The range the count lies in at about 95%; `high` null when nothing bounds it yet. */
  low: number;
  high: number | null;
  known: number;
  /** Per row, the conflicts expected in its cells not explored yet (null when the grid says nothing yet). */
  perRow: readonly number[] | null;
  /** Where the figure comes from: the explored grid, the tips' merge (nothing explored yet), or only what is known. */
  basis: 'grid' | 'tips' | 'known';
}

const Z = 1.96;
/** Pseudo-conflicts a row's own share is shrunk with towards the grid's: rows with little explored follow the grid. */
const PRIOR_CONFLICTS = 2;

/** Wilson's interval for a share of `k` successes in `n` trials. */
function wilson(k: number, n: number): { low: number; high: number } {
  const p = k / n;
  const d = 1 + (Z * Z) / n;
  const centre = (p + (Z * Z) / (2 * n)) / d;
  const half = (Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n))) / d;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * The conflicts expected: each row's share of explored cells that conflict (shrunk towards the
 * grid's share, so a row barely explored follows the grid), extrapolated over the row's cells not
 * explored yet. Every conflict inside the explored region is known (a cell is merged only once its
 * parents are), so the count is the known ones plus binomial counts over the rest; the range adds
 * the shares' uncertainty (each row's, and the grid's that all rows lean on) to those counts' own
 * spread, and closes on the known count as the grid fills.
 */
/** Per row, the cells explored so far: at or behind the frontier, and the row's blocked cell. */
export function seenPerRow(grid: GridSample): number[] {
  const rows = grid.size.i1;
  const explored = Array.from({ length: rows }, (_, r) => grid.filled?.[r] ?? 0);
  for (const r of grid.blockedRows) if (r >= 1 && r <= rows) explored[r - 1] = (explored[r - 1] as number) + 1;
  return explored.map((n) => Math.min(grid.size.i2, n));
}

export function expectedConflicts(grid: GridSample): ConflictRange {
  const known = grid.conflictRows.length;
  const rows = grid.size.i1;
  const width = grid.size.i2;
  const seen = seenPerRow(grid);
  const total = seen.reduce((a, b) => a + b, 0);
  const unexplored = rows * width - total;
  if (grid.filled === null || total === 0) {
    const tips = grid.tips ?? 0;
    if (tips > known) return { expected: tips, low: known, high: null, known, perRow: null, basis: 'tips' };
    return { expected: known, low: known, high: null, known, perRow: null, basis: 'known' };
  }
  if (known === 0 || unexplored === 0) {
    const high = known + Math.ceil(unexplored * wilson(0, total).high);
    const tips = grid.tips !== null && grid.tips <= high ? grid.tips : 0;
    const perRow = new Array<number>(rows).fill(0);
    return { expected: Math.max(known, tips), low: known, high, known, perRow, basis: 'grid' };
  }
  const share = Math.min(1, known / total);
  const prior = PRIOR_CONFLICTS / share;
  const inRow = new Array<number>(rows).fill(0);
  for (const r of grid.conflictRows) if (r >= 1 && r <= rows) inRow[r - 1] = (inRow[r - 1] as number) + 1;
  let mean = known;
  let variance = 0;
  let leaning = 0;
  const perRow = new Array<number>(rows).fill(0);
  seen.forEach((n, r) => {
    const left = width - n;
    if (left === 0) return;
    const p = Math.min(1, ((inRow[r] as number) + PRIOR_CONFLICTS) / (n + prior));
    perRow[r] = p * left;
    mean += p * left;
    variance += left * p * (1 - p) + (left * left * p * (1 - p)) / (n + prior);
    leaning += (left * prior) / (n + prior);
  });
  variance += leaning * leaning * ((share * (1 - share)) / total);
  const spread = Z * Math.sqrt(variance);
  // Few conflicts seen make the count's tails long: the range holds at least the grid's Wilson interval,
  // and never more conflicts than cells.
  const rate = wilson(known, total);
  const wide = { low: rate.low * unexplored, high: rate.high * unexplored };
  const high = Math.min(
    known + unexplored,
    Math.ceil(Math.max(mean + spread, known + wide.high + Z * Math.sqrt(wide.high))),
  );
  const low = Math.max(known, Math.floor(Math.min(mean - spread, known + wide.low - Z * Math.sqrt(wide.low))));
  // The tips' groups stand for conflicts anywhere in the grid, explored or not: while the grid's range
  // allows them, the count is not expected below them (an explored corner may be quieter than the rest).
  const tips = grid.tips !== null && grid.tips <= high ? grid.tips : 0;
  return {
    expected: Math.max(Math.round(mean), tips),
    low,
    high,
    known,
    perRow,
    basis: 'grid',
  };
}

/** What the journal measured of each part of the work on conflicts. */
export interface Timings {
  /** Conflicts resolved so far. */
  done: number;
  /** Conflicts met so far: resolved, and open (those of the open hand-off among them). */
  met: number;
  /** Milliseconds the run worked on conflicts (resolving, checking, recovering, and the cleanup of worktrees). */
  conflictWorkMs: number;
  /** Each check run on a cell, in milliseconds. */
  checkRuns: number[];
  /** Each hand-off's wait for the person, from `person_needed` to the `continue` that took it. */
  personWaits: number[];
  /** Hand-offs so far (the open one included). */
  handoffs: number;
  /** Conflicts handed to the person so far (one handed again counts again). */
  handed: number;
  /** The run's work between each hand-off and the next, from the first hand-off on. */
  stretches: readonly Stretch[];
  /** A worktree's removal at the run's measured pace, and how many it holds now; null before one is removed. */
  cleanup: { perWorktreeMs: number; held: number } | null;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The grid's work still to do: the layers of conflicts, and the cells not merged yet. */
export interface WorkLeft {
  layers: number;
  cells: number;
}

/**
 * The time left for `remaining` conflicts: each part at its measured cost (medians of the check runs
 * and of the person's waits, the run's own work per conflict), plus the final validation and the
 * finish. Null before any conflict is resolved, when nothing has been measured.
 */
export function timeLeft(
  remaining: number,
  t: Timings,
  finalMs: number,
  grid: WorkLeft | null = null,
): TimeLeft | null {
  if (t.done <= 0) return null;
  const checkTotal = t.checkRuns.reduce((a, b) => a + b, 0);
  const runPer = Math.max(0, t.conflictWorkMs - checkTotal) / t.done;
  const checksPer = (t.checkRuns.length / t.done) * median(t.checkRuns);
  const cost = grid === null || remaining === 0 ? null : fitRunCost(t.stretches);
  const layered = cost !== null && grid !== null ? { cost, layers: grid.layers, cells: grid.cells } : null;
  const met = Math.max(t.met, t.done, 1);
  // A layer needs the person about as often as a conflict has; without layers, hand-offs per conflict met
  // (the open hand-off counts with its conflicts, not against the resolved ones only).
  const handoffsLeft = layered
    ? Math.round(layered.layers * Math.min(1, t.handed / met))
    : Math.round((remaining * t.handoffs) / met);
  const personMs = t.personWaits.length > 0 ? handoffsLeft * median(t.personWaits) : null;
  // Each hand-off left takes a continue: its fixed work and its rounds (the layers the ladder settles
  // among them), besides each conflict's own and each cell's the grid has still to merge.
  const perHandoff = layered ? layered.cost.perHandoffMs + layered.cost.roundsPerHandoff * layered.cost.perRoundMs : 0;
  const runMs = layered
    ? handoffsLeft * perHandoff + layered.cells * layered.cost.perCellMs + remaining * layered.cost.perConflictMs
    : remaining * runPer;
  const checksMs = remaining * checksPer;
  // The merge commit, its record and the checkout brought forward are tree-wide work like a continue's
  // with one round (a conflict's, before that is fitted); then each worktree held goes at the measured pace.
  const removal = t.cleanup ? t.cleanup.held * t.cleanup.perWorktreeMs : 0;
  const finishMs = (layered ? layered.cost.perHandoffMs + layered.cost.perRoundMs : runPer) + removal;
  return {
    ms: runMs + checksMs + (personMs ?? 0) + finalMs + finishMs,
    parts: { runMs, checksMs, personMs, finalMs, finishMs },
    handoffsLeft,
  };
}

const conflictNodes = new Set(['resolve_conflicts', 'check', 'summarize_failure', 'plan_recovery', 'execute_recovery']);

/** The timings folded event by event (the driving process keeps one up to date); `timingsOf` reads them. */
export interface TimingTally {
  conflictWorkMs: number;
  checkRuns: number[];
  personWaits: number[];
  handoffs: number;
  /** When the open hand-off asked for the person (null when none is open). */
  askedAt: string | null;
  /**
   * When the resolving node running began (null outside one): the conflicts it resolved are counted
   * before it ends, so its work so far counts too. A running check's time is not work per conflict.
   */
  resolvingSince: string | null;
  /**
   * How long finding the first frontier took (the first autofill): done once, not again for each
   * conflict. `settled` once its node finished: a node killed first never added its time at all.
   */
  frontier: { ms: number; settled: boolean } | null;
  handed: number;
  stretches: Stretch[];
  /** The stretch since the last hand-off (null before the first). */
  stretch: Stretch | null;
  /** Worktrees removed so far and how long that took; `held`: how many the run had after the last removal. */
  removals: { count: number; ms: number; held: number };
  /** Cells the grid had filled at its last update (null before one that says). */
  filledCells: number | null;
}

export function emptyTimings(): TimingTally {
  return {
    conflictWorkMs: 0,
    checkRuns: [],
    personWaits: [],
    handoffs: 0,
    askedAt: null,
    resolvingSince: null,
    frontier: null,
    handed: 0,
    stretches: [],
    stretch: null,
    removals: { count: 0, ms: 0, held: 0 },
    filledCells: null,
  };
}

/** The open stretch with `change` added to it (nothing before the first hand-off). */
function inStretch(t: TimingTally, change: Partial<Stretch>): Stretch | null {
  if (t.stretch === null) return null;
  const s = t.stretch;
  return {
    workMs: s.workMs + (change.workMs ?? 0),
    conflicts: s.conflicts + (change.conflicts ?? 0),
    rounds: s.rounds + (change.rounds ?? 0),
    cells: s.cells + (change.cells ?? 0),
  };
}

/** Milliseconds from one journal time to another; 0 for a time that does not parse. */
function between(from: string, to: string): number {
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? Math.max(0, ms) : 0;
}

/** The frontier measured in a node that never finished is forgotten: that node's time was never added. */
function settledFrontier(t: TimingTally): TimingTally['frontier'] {
  return t.frontier?.settled ? t.frontier : null;
}

/** The timings after one more event. */
export function addTiming(t: TimingTally, e: RunEvent): TimingTally {
  if (e.type === 'node_finished') {
    if (!conflictNodes.has(e.node)) return { ...t, resolvingSince: null };
    const frontier = t.frontier && e.node === 'resolve_conflicts' ? { ...t.frontier, settled: true } : t.frontier;
    const stretch = inStretch(t, { workMs: e.durationMs });
    return { ...t, conflictWorkMs: t.conflictWorkMs + e.durationMs, resolvingSince: null, frontier, stretch };
  }
  if (e.type === 'check_finished' && e.check.target === 'cell') {
    const stretch = inStretch(t, { workMs: -e.check.durationMs });
    return { ...t, checkRuns: [...t.checkRuns, e.check.durationMs], stretch };
  }
  if (e.type === 'conflict_resolved') return { ...t, stretch: inStretch(t, { conflicts: 1 }) };
  if (e.type === 'worktrees_removed') {
    const r = t.removals;
    return { ...t, removals: { count: r.count + e.count, ms: r.ms + e.durationMs, held: e.left } };
  }
  if (e.type === 'person_needed') {
    const stretches = t.stretch ? [...t.stretches, t.stretch] : t.stretches;
    const handed = t.handed + (e.conflicts?.length ?? 0);
    return {
      ...t,
      handoffs: t.handoffs + 1,
      askedAt: e.ts,
      handed,
      stretches,
      stretch: { workMs: 0, conflicts: 0, rounds: 0, cells: 0 },
    };
  }
  // A run that stopped (killed, halted) has no node running until its next one is entered.
  if (e.type === 'run_outcome') return { ...t, resolvingSince: null, frontier: settledFrontier(t) };
  if (e.type === 'node_entered') {
    const next = { ...t, resolvingSince: e.node === 'resolve_conflicts' ? e.ts : null, frontier: settledFrontier(t) };
    if (t.askedAt === null) return next;
    // The next node entered after a hand-off is the `continue` that took it.
    return { ...next, personWaits: [...t.personWaits, between(t.askedAt, e.ts)], askedAt: null };
  }
  if (e.type === 'grid_updated') {
    const filled = e.grid.filled?.reduce((a, b) => a + b, 0) ?? t.filledCells;
    const cells = filled !== null && t.filledCells !== null ? Math.max(0, filled - t.filledCells) : 0;
    if (t.resolvingSince === null) return { ...t, filledCells: filled, stretch: inStretch(t, { cells }) };
    const stretch = inStretch(t, { rounds: 1, cells });
    if (t.frontier !== null) return { ...t, filledCells: filled, stretch };
    return { ...t, filledCells: filled, frontier: { ms: between(t.resolvingSince, e.ts), settled: false }, stretch };
  }
  return t;
}

/**
 * The timings of a tally, for `done` conflicts resolved of `met` met. `now`: the run is live, and
 * the resolving node running counts up to then (its conflicts are in `done` before it ends).
 */
export function timingsFrom(t: TimingTally, done: number, met: number, now?: Date): Timings {
  const live = now !== undefined && t.resolvingSince !== null;
  const current = live ? between(t.resolvingSince as string, now.toISOString()) : 0;
  // The first frontier is taken out of the work it is counted in: the finished node's, or the live one's.
  const frontier = t.frontier !== null && (t.frontier.settled || live) ? t.frontier.ms : 0;
  return {
    done,
    met,
    conflictWorkMs: Math.max(0, t.conflictWorkMs + current - frontier),
    checkRuns: t.checkRuns,
    personWaits: t.personWaits,
    handoffs: t.handoffs,
    handed: t.handed,
    stretches: t.stretches,
    cleanup: t.removals.count > 0 ? { perWorktreeMs: t.removals.ms / t.removals.count, held: t.removals.held } : null,
  };
}

/** The timings a journal holds (`now`: as `timingsFrom`). */
export function timingsOf(events: readonly RunEvent[], done: number, met: number, now?: Date): Timings {
  return timingsFrom(events.reduce(addTiming, emptyTimings()), done, met, now);
}

/** Which parts a time left counts, in words: `run 4m, checks 20m, your pace 12m, final checks 2m, finish 30s`. */
export function timeLeftParts(left: TimeLeft, format: (ms: number) => string): string {
  const p = left.parts;
  return [
    `run ${format(p.runMs)}`,
    ...(p.checksMs > 0 ? [`checks ${format(p.checksMs)}`] : []),
    ...(p.personMs !== null ? [`your pace ${format(p.personMs)} over ~${left.handoffsLeft} hand-off(s)`] : []),
    ...(p.finalMs > 0 ? [`final checks ${format(p.finalMs)}`] : []),
    ...(p.finishMs > 0 ? [`finish ${format(p.finishMs)}`] : []),
  ].join(', ');
}

/** The grid sample of a run: its state, and conflicts the journal met that the state has not saved yet. */
export function gridSampleOf(state: RunState, met: ReadonlySet<string> = new Set()): GridSample {
  // A conflict's id is its cell, `I1-I2`.
  const rows = new Map<string, number>([
    ...state.conflicts.map((c) => [c.id, c.cell.i1] as const),
    ...[...met].map((id) => [id, Number.parseInt(id, 10)] as const),
  ]);
  const blockers = state.grid?.blockers ?? [];
  for (const b of blockers) if (!rows.has(cellId(b))) rows.set(cellId(b), b.i1);
  return {
    size: state.grid?.size ?? { i1: 0, i2: 0 },
    filled: state.grid?.filled ?? null,
    blockedRows: blockers.map((b) => b.i1),
    conflictRows: [...rows.values()],
    tips: tipFacts(state).tipConflicts?.length ?? null,
  };
}

/** The expected count as words: `~40 expected (range 31-52)`, or `at least 12 expected` when unbounded. */
export function expectedWords(r: Pick<ConflictRange, 'expected' | 'low' | 'high'>): string {
  // "At least 0" bounds nothing: before any conflict is met the estimate stands alone.
  if (r.high === null)
    return r.expected > r.low
      ? `~${r.expected} expected${r.low > 0 ? ` (at least ${r.low})` : ''}`
      : `at least ${r.low} expected`;
  return r.low === r.high ? `${r.expected} expected` : `~${r.expected} expected (range ${r.low}-${r.high})`;
}
