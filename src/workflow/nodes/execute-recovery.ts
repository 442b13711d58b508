import type { FailureSummary } from '../../checks/types.js';
import { cellId, dominates, joinCells, parseCellId, type Cell } from '../../imerge/cell.js';
import type { ConflictState, HandoffConflict, RunState } from '../../store/run-state.js';
import { amendEntry, amendFiles, handoffToPerson, handoffFailure } from '../handoff/index.js';
import { bisect } from '../plan/bisect.js';
import { fileMemoryKey, mergeStages, type FileStages } from '../../resolve/cache/file-memory.js';
import { closeAttempt, openAttempt } from './attempt.js';
import { moreConservative, runChecksOn, type Ctx, type Result } from './common.js';
import { checkProgress, withCheckProgress } from '../../store/flow-checks.js';
import { recoveryMemory, withRecoveryMemory } from '../../store/flow-recovery.js';
import { handedBack } from './handed-back.js';

type Decision = NonNullable<RunState['pendingRecovery']>;
type Engine = Awaited<ReturnType<Ctx['engine']>>;

/**
 * Abort: with nothing under test the run fails, keeping the grid. Otherwise the way back in: the
 * resolutions under test are presented in their worktrees, as they are, for a person to fix (the
 * run stops as needing the person); `continue` takes the fix and the retry budget starts again.
 * The grid keeps them until then.
 */
async function abortRecovery(state: RunState, ctx: Ctx, summary: FailureSummary | null | undefined): Promise<Result> {
  const now = ctx.clock.now().toISOString();
  const { lastCheck: last, batch } = checkProgress(state);
  const what =
    `Aborted after ${state.currentAttempt} attempt(s): ${summary ? `${summary.error_type} at ${summary.location ?? '?'}: ${summary.root_cause}` : 'the check failed'}` +
    (last ? ` (log: ${last.logFile})` : '');
  const underTest = state.conflicts.filter((c) => batch.includes(c.id) && c.resolutionTree !== null);
  const closed = closeAttempt(ctx, { ...state, pendingRecovery: null }, state.pendingRecovery, now);
  if (underTest.length === 0) {
    const reason = `${what}. The grid and every resolution are kept: inspect with \`splintercat status\`, fix by hand, or remove with \`splintercat abort\`.`;
    return { halt: 'failed', next: 'end', reason, state: closed };
  }
  const amended = await presentToAmend(ctx, state, underTest);
  for (const key of cacheKeysOf(underTest)) await ctx.ladder.cache?.remove(key);
  const ids = new Set(underTest.map((c) => c.id));
  let next = newAttempt(
    {
      ...closed,
      conflicts: closed.conflicts.map((c) => (ids.has(c.id) ? { ...c, status: 'needs_person' as const } : c)),
    },
    now,
  );
  next = withCheckProgress(next, { batch: batch.filter((id) => !ids.has(id)), finalValidated: false });
  next = withRecoveryMemory(next, { retryBase: state.currentAttempt });
  const handed = await handoffToPerson(next, ctx, amended);
  const where = amended.map((c) => `${c.conflict} in ${c.worktree}`).join(', ');
  const reason =
    `${what}. The resolution${amended.length > 1 ? 's' : ''} under test ${amended.length > 1 ? 'are' : 'is'} presented for a fix: ${where}. ` +
    `${amended.length > 1 ? 'Fix the one at fault (the others may stay as they are)' : 'Fix it there'} (edit, or commit a fix in that worktree), then run \`splintercat continue\` (the retry budget starts again); or remove the merge with \`splintercat abort\`.`;
  // The resolutions are handed to a person to fix, so the run waits for a person (exit 3), not a failure.
  return { halt: 'needs_person', next: 'resolve_conflicts', reason, state: handed.state };
}

function cacheKeysOf(conflicts: ConflictState[]): string[] {
  return conflicts
    .flatMap((c) => c.files.flatMap((f) => f.hunks.map((h) => h.cacheKey)))
    .filter((k): k is string => k !== null);
}

/** Bisect the batch with the failed check: the culprits, or the whole batch when none is isolated. */
async function bisectBatch(
  state: RunState,
  ctx: Ctx,
  engine: Engine,
  batch: Cell[],
): Promise<{ redo: Cell[]; isolated: boolean; state: RunState }> {
  const last = checkProgress(state).lastCheck;
  let bisectState = state;
  // Probes run in parallel where the checks run elsewhere (CI runners); here they share one worktree.
  const result = await bisect(
    batch,
    async (cells) => {
      const commit = await engine.probeCommit(cells);
      if (!commit) return null;
      const at = cells.length === 1 ? (cells[0] as Cell) : joinCells(cells);
      const run = await runChecksOn(ctx, bisectState, commit, at, 'cell', last ? [last.name] : undefined);
      bisectState = { ...bisectState, checks: [...bisectState.checks, ...run.records] };
      return run.passed;
    },
    { knownFailing: last !== undefined, width: ctx.checks.parallel ?? 1 },
  );
  ctx.log.decision(
    { culprits: result.culprits.map(cellId) },
    `[bisect] ${result.probes.length} check(s) isolated ${result.culprits.map(cellId).join(', ') || 'nothing'}`,
  );
  const isolated = result.culprits.length > 0;
  return { redo: isolated ? result.culprits : batch, isolated, state: { ...state, checks: bisectState.checks } };
}

/**
 * Only the resolutions chosen for retry are blamed; those merged on top of them keep their cache entries.
 * A blame the check pins down (the one resolution redone, or bisect's culprits) is for good: the
 * answer is never stored, replayed or given again, in this run or a later one. Several redone
 * together (retry-all of a batch) are only forgotten by the cache, so none is replayed unchecked,
 * while a resolver may still give a right one of them again.
 */
async function blameRedone(
  state: RunState,
  ctx: Ctx,
  engine: Engine,
  { blamed, isolated, reason }: { blamed: Set<string>; isolated: boolean; reason: string },
): Promise<void> {
  const certain = isolated || blamed.size === 1;
  for (const c of state.conflicts.filter((x) => blamed.has(x.id))) {
    // The whole files remembered for this cell go with its hunks' answers (a deletion has no hunk to carry its key).
    const files = await fileMemoryKeysOf(ctx, engine, c);
    for (const key of new Set([...cacheKeysOf([c]), ...files])) {
      if (certain) await ctx.ladder.cache?.invalidate(key, reason, state.name);
      else await ctx.ladder.cache?.remove(key);
    }
    ctx.journal.append({ type: 'conflict_blamed', conflict: c.id, reason });
  }
}

/** The keys of the whole files remembered for a conflict's files at its cell (none where the cell's sides are not known). */
async function fileMemoryKeysOf(ctx: Ctx, engine: Engine, c: ConflictState): Promise<string[]> {
  if (!ctx.ladder.cache) return [];
  const parents = await engine.conflictCell(c.cell).catch(() => null);
  if (parents === null) return [];
  const paths = c.files.map((f) => f.path);
  const stages = await mergeStages(ctx.git, parents.above, parents.left, paths).catch(() => null);
  return [...(stages ?? new Map<string, FileStages>())].map(([path, sides]) => fileMemoryKey(path, sides));
}

/** The strategy after the decision: a switch moves to the named or the next more conservative one. */
function strategyAfter(state: RunState, decision: Decision, ctx: Ctx, now: string): RunState['strategy'] {
  const strategy = state.strategy;
  if (decision.decision !== 'switch-strategy' || !strategy) return strategy;
  const kind = decision.newStrategy ?? moreConservative[strategy.kind];
  const batchSize = kind === 'batch' ? (decision.batchSize ?? ctx.config.merge.default_batch_size) : null;
  const label = (k: string, size: number | null): string => (size ? `${k}(${size})` : k);
  // The switch is journalled as a strategy decision with its reason, so the report shows the strategy used.
  const redone = state.conflicts.filter((c) => c.attempts > 1).length;
  const reasoning = `after attempt ${state.currentAttempt} failed its check (${redone} of ${state.conflicts.length} conflict(s) redone so far), ${label(strategy.kind, strategy.batchSize)} -> ${label(kind, batchSize)}: ${decision.reasoning}`;
  ctx.journal.append({
    type: 'decision',
    kind: 'strategy',
    by: decision.decidedBy,
    decision: kind,
    reasoning,
    batchSize,
  });
  return { ...strategy, kind, batchSize, decidedBy: decision.decidedBy, reasoning, decidedAt: now };
}

/** The conflicts redone: a person's is presented to amend, a blamed one waits for the resolver, the rest for the ladder. */
function reopenConflicts(
  state: RunState,
  ids: Set<string>,
  blamed: Set<string>,
  toAmend: Set<string>,
  reason: string,
): ConflictState[] {
  return state.conflicts.map((c) => {
    if (!ids.has(c.id)) return c;
    const status = toAmend.has(c.id) ? 'needs_person' : blamed.has(c.id) ? 'blamed' : 'pending';
    const blame = blamed.has(c.id) ? reason : c.blame;
    return { ...c, status, blame, resolutionTree: null, resolutionCommit: null };
  });
}

/**
 * ExecuteRecovery: abort, or choose the resolutions to redo (all of the batch, the
 * planner's picks, or the culprit bisect isolates), blame them in the cache, drop
 * them and everything built on them from the grid, and resolve again with the
 * failure summary in the resolver's context — as a new attempt.
 */
export async function executeRecovery(state: RunState, ctx: Ctx): Promise<Result> {
  const decision = state.pendingRecovery;
  const now = ctx.clock.now().toISOString();
  const summary = state.attempts.find((a) => a.number === state.currentAttempt)?.failureSummary;
  const engine = await ctx.engine();
  if (!decision || decision.decision === 'abort') return abortRecovery(state, ctx, summary);

  const batch = checkProgress(state).batch.map(parseCellId);
  let redo = batch;
  // Bisect isolated the culprits: their blame is certain whatever their number.
  let isolated = false;
  if (decision.decision === 'retry-specific') {
    const picked = decision.conflicts.map(parseCellId).filter((c) => batch.some((b) => cellId(b) === cellId(c)));
    if (picked.length > 0) redo = picked;
  } else if (decision.decision === 'bisect') {
    ({ redo, isolated, state } = await bisectBatch(state, ctx, engine, batch));
  }
  // Resolutions recorded on top of a redone cell were made against its old tree: redo them too.
  const redoAll = batch.filter((b) => redo.some((r) => dominates(b, r)));
  for (const c of redo) if (!redoAll.some((x) => cellId(x) === cellId(c))) redoAll.push(c);
  const ids = new Set(redoAll.map(cellId));
  const reason = summary
    ? `${summary.error_type}${summary.location ? ` at ${summary.location}` : ''}: ${summary.root_cause}`
    : 'a check failed';
  const blamed = new Set(redo.map(cellId));
  await blameRedone(state, ctx, engine, { blamed, isolated, reason });
  await engine.forget(redoAll);

  // A person's resolution (or the policy's, which the ladder would write again) is never thrown
  // away: it is presented again, in place, with the failure to amend.
  const persons = state.conflicts.filter((c) => blamed.has(c.id) && c.resolutionTree !== null && handedBack(c));
  const amended = persons.length > 0 ? await presentToAmend(ctx, state, persons) : [];
  const retryContext = { ...recoveryMemory(state).retryContext };
  const failure: FailureSummary = summary ?? {
    error_type: 'test_failure',
    location: null,
    root_cause: reason,
    excerpt: '',
  };
  for (const id of blamed) retryContext[id] = failure;
  const conflicts = reopenConflicts(state, ids, blamed, new Set(persons.map((c) => c.id)), reason);
  const strategy = strategyAfter(state, decision, ctx, now);
  const kept = checkProgress(state).batch.filter((id) => !ids.has(id));
  const next = newAttempt(
    closeAttempt(ctx, { ...state, conflicts, strategy, pendingRecovery: null }, decision, now),
    now,
  );
  const after = withRecoveryMemory(withCheckProgress(next, { batch: kept, finalValidated: false }), { retryContext });
  if (amended.length > 0) return handoffToPerson(after, ctx, amended);
  return { next: 'resolve_conflicts', state: after };
}

/** The state with a new attempt begun, under the run's strategy. */
function newAttempt(state: RunState, now: string): RunState {
  const number = state.currentAttempt + 1;
  const strategy = state.strategy;
  return {
    ...state,
    currentAttempt: number,
    attempts: [...state.attempts, openAttempt(number, strategy, now)],
  };
}

/** Present each conflict's current resolution in its worktree, with the failure, for a person to amend. */
async function presentToAmend(ctx: Ctx, state: RunState, conflicts: ConflictState[]): Promise<HandoffConflict[]> {
  const engine = await ctx.engine();
  const out: HandoffConflict[] = [];
  for (const c of conflicts) {
    const details = await engine.conflictCell(c.cell);
    const id = ctx.worktrees.conflictId(c.cell);
    const worktree = await ctx.worktrees.presentResolution(id, details.above, details.left, c.resolutionTree as string);
    await ctx.worktrees.protect(id, details.above, details.left);
    const failure = (await handoffFailure(
      ctx,
      engine,
      state,
      c.cell,
      c.files.map((f) => f.path),
    )) ?? {
      check: 'check',
      logFile: '',
      summary: 'a check failed',
      excerpt: '',
      cleanlyMerged: [],
    };
    out.push(amendEntry(c, worktree, failure, amendFiles(c, failure.check)));
  }
  return out;
}
