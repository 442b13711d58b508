import type { RunEvent } from './run-events.js';
import { isStrategyKind, type ConflictState, type RunState } from './run-state.js';
import { pendingConflict } from './pending-conflict.js';

/** What the journal's events say of the run's conflicts, checks, attempts and decisions. */
export interface Replay {
  conflicts: Map<string, ConflictState>;
  currentAttempt: number;
  checks: RunState['checks'];
  attempts: RunState['attempts'];
  strategy: RunState['strategy'];
  grid: RunState['grid'];
  handoff: RunState['handoff'];
  acceptedFailures: RunState['acceptedFailures'];
}

/** The conflict `id`, added (pending, no files) the first time it is named. */
export function conflictOf(replay: Replay, id: string, cell: { i1: number; i2: number }): ConflictState {
  let c = replay.conflicts.get(id);
  if (c === undefined) {
    c = pendingConflict(id, cell);
    replay.conflicts.set(id, c);
  }
  return c;
}

function replayResolved(replay: Replay, e: Extract<RunEvent, { type: 'conflict_resolved' }>): void {
  const c = conflictOf(replay, e.conflict, e.cell);
  c.status = 'resolved';
  c.attempts += 1;
  c.resolvedInAttempt = e.attempt;
  c.resolutionCommit = e.commit;
  c.resolutionTree = e.tree;
  c.blame = null;
  if (e.outsideEdits !== undefined) c.outsideEdits = e.outsideEdits;
  else delete c.outsideEdits;
  for (const f of e.files) {
    let file = c.files.find((x) => x.path === f.path);
    if (file === undefined) {
      file = { path: f.path, kind: f.kind ?? 'content', hunks: [] };
      c.files.push(file);
    } else if (f.kind !== undefined) file.kind = f.kind;
    if (f.drops !== undefined) file.drops = f.drops;
    else delete file.drops;
    for (const h of f.hunks) {
      const hunk = {
        index: h.index,
        status: 'resolved' as const,
        rung: h.rung,
        by: h.by,
        cacheKey: h.cacheKey ?? null,
      };
      const at = file.hunks.findIndex((x) => x.index === h.index);
      if (at >= 0) file.hunks[at] = hunk;
      else file.hunks.push(hunk);
    }
  }
  replay.currentAttempt = Math.max(replay.currentAttempt, e.attempt);
}

function replayConflictEvent(replay: Replay, e: RunEvent): void {
  if (e.type === 'conflict_found') {
    const c = conflictOf(replay, e.conflict, e.cell);
    c.files = e.files.map((f) => ({
      path: f.path,
      kind: f.kind,
      hunks: Array.from({ length: f.hunks }, (_, i) => ({
        index: i + 1,
        status: 'pending' as const,
        rung: null,
        by: null,
        cacheKey: null,
      })),
    }));
  } else if (e.type === 'conflict_resolved') {
    replayResolved(replay, e);
  } else if (e.type === 'conflict_blamed') {
    const c = replay.conflicts.get(e.conflict);
    if (c !== undefined) {
      c.status = 'blamed';
      c.blame = e.reason;
    }
  }
}

function replayEvent(replay: Replay, e: RunEvent): void {
  switch (e.type) {
    case 'check_finished':
      replay.checks.push(e.check);
      replay.currentAttempt = Math.max(replay.currentAttempt, e.check.attempt);
      break;
    case 'attempt_finished':
      // A later record of the same attempt (a kill replayed its close) replaces the earlier one.
      replay.attempts = [...replay.attempts.filter((a) => a.number !== e.attempt.number), e.attempt];
      replay.currentAttempt = Math.max(replay.currentAttempt, e.attempt.number);
      break;
    case 'decision':
      if (e.kind === 'strategy' && isStrategyKind(e.decision)) {
        const batchSize = e.batchSize ?? null;
        replay.strategy = { kind: e.decision, batchSize, decidedBy: e.by, reasoning: e.reasoning, decidedAt: e.ts };
      }
      break;
    case 'grid_updated':
      replay.grid = e.grid;
      break;
    case 'failure_accepted':
      replay.acceptedFailures.push(e.accepted);
      break;
    case 'person_needed':
      replay.handoff = {
        reason: e.reason,
        files: e.files,
        commands: e.commands,
        where: e.conflicts?.[0]?.worktree ?? null,
        conflicts: e.conflicts ?? [],
      };
      break;
    default:
      replayConflictEvent(replay, e);
  }
}

export function replayEvents(events: RunEvent[]): Replay {
  const replay: Replay = {
    conflicts: new Map(),
    currentAttempt: 0,
    checks: [],
    attempts: [],
    strategy: null,
    grid: null,
    handoff: null,
    acceptedFailures: [],
  };
  for (const e of events) replayEvent(replay, e);
  return replay;
}
