import { joinCells, maximalCells, parseCellId, type Cell } from '../../imerge/cell.js';
import type { RunState } from '../../store/run-state.js';
import { checkProgress, withCheckProgress, type CheckProgress } from '../../store/flow-checks.js';
import { recoveryMemory, withRecoveryMemory } from '../../store/flow-recovery.js';
import { planCheck, type CheckPlan } from '../check-plan.js';
import type { GridEngine } from '../ports.js';
import { replan } from './plan-strategy.js';
import { lastCheck, recordChecks, runChecksOn, type Ctx, type Result } from './common.js';

/**
 * Check: validate the batch just resolved on a tree that embodies it — the final cell once the
 * grid is complete, else the join of the resolutions when it is filled, else their cells merged
 * in memory (one check for independent resolutions), else each maximal cell. What runs is
 * planned by check-plan.ts: nothing for resolutions that change no compiled byte, the fast
 * checks their files select, or the full checks (which also cover every resolution that passed
 * only fast checks since the last full one). Only failures absent from the baselines are blamed
 * on the resolutions; a batch whose check could not see everything is not counted as validated.
 */
export async function check(state: RunState, ctx: Ctx): Promise<Result> {
  const engine = await ctx.engine();
  const data = checkProgress(state);
  const batch = data.batch;
  const size = engine.size();
  const complete = (state.grid?.blockers.length ?? 0) === 0;
  const final: Cell = { i1: size.i1, i2: size.i2 };
  const atFinal = complete && (await engine.cellCommit(final)) !== null;
  const plan = await planCheck(ctx, state, batch, atFinal);
  const pending = data.fastOnly;
  const journalPlan = (): void => {
    const names = plan.kind === 'skip' ? 'no check' : plan.names.join(', ') || 'no check';
    ctx.journal.append({
      type: 'decision',
      kind: 'check',
      by: 'runner',
      decision: plan.kind,
      reasoning: `${names}: ${plan.reason}`,
      conflicts: [...batch],
    });
    ctx.log.decision({ check: plan.kind, conflicts: batch }, `[check] ${batch.join(', ')}: ${names} (${plan.reason})`);
  };
  journalPlan();
  if (plan.kind === 'skip') return skipped(state, ctx, plan, complete);

  const covered = plan.kind === 'full' ? [...pending.map((p) => p.conflict), ...batch] : batch;
  const targets = atFinal ? [{ cell: final, commit: null }] : await checkTargets(engine, covered.map(parseCellId));
  let next = state;
  let seenAll = true;
  for (const target of targets) {
    const commit = target.commit ?? (await engine.cellCommit(target.cell));
    if (!commit) continue;
    const run = await runChecksOn(ctx, next, commit, target.cell, 'cell', plan.names);
    next = recordChecks(next, run.records, run.baselines);
    if (!run.passed && run.failed) {
      // A fast check fails on what it checked (a resolution it did not cover never selected it); a
      // full one may fail on any resolution since the last full check.
      const suspects = [...new Set([...(plan.kind === 'full' ? pending.map((p) => p.conflict) : []), ...batch])];
      return {
        next: 'summarize_failure',
        state: withCheckProgress(next, {
          batch: suspects,
          fastOnly: pending.filter((p) => !suspects.includes(p.conflict)),
          lastCheck: lastCheck(target.cell, run.failed, run.blame),
        }),
      };
    }
    if (!run.validated) seenAll = false;
  }
  const after = passed(next, data, plan, covered, seenAll, atFinal, complete);
  return complete ? after : { ...after, state: replan(after.state, ctx) };
}

/** After the checks passed: a full check validates what it covered; a fast one leaves the batch waiting for the next full one. */
function passed(
  state: RunState,
  data: CheckProgress,
  plan: Exclude<CheckPlan, { kind: 'skip' }>,
  covered: string[],
  seenAll: boolean,
  atFinal: boolean,
  complete: boolean,
): Result {
  const batch = data.batch;
  let validated = data.validated;
  let fastOnly = data.fastOnly;
  if (plan.kind === 'full') {
    if (seenAll) validated = [...new Set([...validated, ...covered])];
    fastOnly = [];
  } else {
    fastOnly = [...fastOnly, ...batch.map((conflict) => ({ conflict, checks: plan.names }))];
  }
  // Conflicts that passed no longer need their failure context; those still waiting keep it.
  const memory = recoveryMemory(state);
  const retryContext = Object.fromEntries(
    Object.entries(memory.retryContext).filter(([id]) => !validated.includes(id) && !batch.includes(id)),
  );
  // A check that passed is progress: the retry budget counts recovery attempts in a row, so a long
  // merge with many independent failures is not aborted for their sum.
  const retryBase = batch.length > 0 ? Math.max(memory.retryBase, state.currentAttempt - 1) : memory.retryBase;
  const checked = withCheckProgress(state, {
    batch: [],
    validated,
    fastOnly,
    finalValidated: atFinal && plan.kind === 'full',
  });
  const next = withRecoveryMemory(checked, { retryContext, retryBase });
  return { next: complete ? 'finalize' : 'resolve_conflicts', state: next };
}

/** No check for resolutions that change no compiled byte: recorded on each conflict, covered by the next full check. */
function skipped(state: RunState, ctx: Ctx, plan: Extract<CheckPlan, { kind: 'skip' }>, complete: boolean): Result {
  const data = checkProgress(state);
  const batch = data.batch;
  for (const [id, files] of Object.entries(plan.proofs))
    ctx.log.decision({ conflict: id }, `[check] no check for ${id}: ${files} change no compiled byte`);
  const conflicts = state.conflicts.map((c) =>
    plan.proofs[c.id] !== undefined ? { ...c, checkSkipped: `${plan.reason}: ${plan.proofs[c.id]}` } : c,
  );
  const next = withCheckProgress(
    { ...state, conflicts },
    { batch: [], fastOnly: [...data.fastOnly, ...batch.map((conflict) => ({ conflict, checks: [] }))] },
  );
  return { next: complete ? 'finalize' : 'resolve_conflicts', state: next };
}

/**
 * The trees to check for the resolutions at `cells`: their join when filled (it embodies them
 * all), else one commit merging their cells in memory, else each maximal cell.
 */
async function checkTargets(engine: GridEngine, cells: Cell[]): Promise<Array<{ cell: Cell; commit: string | null }>> {
  if (cells.length === 0) return [];
  const join = joinCells(cells);
  if ((await engine.cellCommit(join)) !== null) return [{ cell: join, commit: null }];
  const maximal = maximalCells(cells);
  const probe = maximal.length > 1 ? await engine.probeCommit(maximal) : null;
  if (probe !== null) return [{ cell: join, commit: probe }];
  return maximal.map((cell) => ({ cell, commit: null }));
}
