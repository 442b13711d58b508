import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { diskEntryBytes } from '../../resolve/parse/disk-entry.js';
import type { HandoffConflict, RunState } from '../../store/run-state.js';
import { acceptCommand } from '../accept-failure.js';
import type { Ctx, Result } from '../nodes/common.js';
import { cdLine, continueCommand } from './commands.js';
import { presentedFile } from './presented.js';
import { recordHandoff } from './snapshot.js';
import { checkProgress } from '../../store/flow-checks.js';
import { expectedConflicts, gridSampleOf, timeLeft, timingsOf } from '../estimate.js';
import { workLeft } from '../layers-left.js';

/**
 * Stop for a person: every conflict with its worktree and each file's kind and exact
 * instructions (`state.handoff`, the `person_needed` event), the `cd DIR   # comment` lines and
 * the one command to run next. The worktrees become the person's (never reset by a resume),
 * and the files are saved as presented so their answers can be learnt.
 */
export async function handoffToPerson(state: RunState, ctx: Ctx, conflicts: HandoffConflict[]): Promise<Result> {
  const engine = await ctx.engine();
  for (const c of conflicts) {
    const cell = state.conflicts.find((x) => x.id === c.conflict)?.cell;
    if (!cell) continue;
    // Parents not merged yet (a resolution before it is presented too): protected when it was presented.
    const details = await engine.conflictCell(cell).catch(() => null);
    if (details) await ctx.worktrees.protect(ctx.worktrees.conflictId(cell), details.above, details.left);
    await putBackBeforeHandoff(ctx, c.conflict, ctx.worktrees.conflictId(cell));
    for (const f of c.files) {
      if (!f.hunks || c.failure) continue;
      const saved = presentedFile(ctx, state, c.conflict, f.path);
      // The first presentation is the one to learn from (a later one may hold the person's half-done edit).
      const current = existsSync(saved) ? null : diskEntryBytes(join(c.worktree, f.path));
      if (current === null) continue;
      mkdirSync(dirname(saved), { recursive: true });
      writeFileSync(saved, current);
    }
  }
  const files = conflicts.flatMap((c) => c.files.map((f) => join(c.worktree, f.path)));
  const commands = [...conflicts.map(cdLine), continueCommand(ctx, state.name)];
  const checks = [...new Set(conflicts.flatMap((c) => (c.failure ? [c.failure.check] : [])))];
  const reason =
    `${files.length} file(s) in ${conflicts.length} conflict(s) need the person: ` +
    (checks.length > 0
      ? `check ${checks.map((n) => `'${n}'`).join(', ')} failed on a resolution to amend`
      : 'the ladder could not resolve them with certainty');
  ctx.journal.append({ type: 'person_needed', reason, files, commands, conflicts });
  const expected = estimateAtHandoff(state, ctx);
  return {
    halt: 'needs_person',
    reason,
    next: 'resolve_conflicts',
    state: {
      ...state,
      handoff: {
        reason,
        files,
        commands,
        where: conflicts[0]?.worktree ?? null,
        conflicts,
        ...(checks.length > 0 ? { accept: acceptCommand(continueCommand(ctx, state.name)) } : {}),
        expected,
      },
    },
  };
}

/** Hand-offs whose estimates are journalled: the first and every tenth after it. */
const ESTIMATE_EVERY = 10;

/**
 * How many conflicts are expected after those met so far (from the grid explored), with the range of
 * the total; at the first hand-off and every tenth the estimates are journalled for the report.
 */
function estimateAtHandoff(state: RunState, ctx: Ctx): NonNullable<NonNullable<RunState['handoff']>['expected']> {
  const sample = gridSampleOf(state);
  const range = expectedConflicts(sample);
  const events = ctx.journal.read().entries;
  const done = state.conflicts.filter((c) => c.status === 'resolved').length;
  const timings = timingsOf(events, done, state.conflicts.length, ctx.clock.now());
  if ((timings.handoffs - 1) % ESTIMATE_EVERY === 0) {
    const finalMs = checkProgress(state).finalValidated ? 0 : (state.strategy?.prediction?.fullMs ?? 0);
    const left = timeLeft(Math.max(0, range.expected - done), timings, finalMs, workLeft(sample, range));
    ctx.journal.append({
      type: 'estimate',
      handoff: timings.handoffs,
      conflicts: range,
      done,
      leftMs: left?.ms ?? null,
      parts: left?.parts ?? null,
      handoffsLeft: left?.handoffsLeft ?? 0,
    });
  }
  return {
    more: Math.max(0, range.expected - state.conflicts.length),
    total: range.expected,
    low: range.low,
    high: range.high,
  };
}

/** What changed outside the conflict's files before a person was asked is nobody's: put back, and said (snapshot.ts). */
async function putBackBeforeHandoff(ctx: Ctx, conflict: string, id: string): Promise<void> {
  const wt = await ctx.worktrees.gitOf(id);
  if (wt === null) return;
  try {
    const putBack = await recordHandoff(wt);
    if (putBack.length > 0)
      ctx.log.decision(
        { conflict, paths: putBack.map((p) => p.path) },
        `[hand-off] ${putBack.length} file(s) outside the conflict's files changed before the hand-off (not by a person): put back`,
      );
  } finally {
    wt.close();
  }
}
