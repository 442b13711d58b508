import type { CheckResult } from '../../checks/types.js';
import type { NodeContext } from './node-context.js';
import type { RunContext, WorkflowContext } from '../ports.js';
import type { CheckRecord, RunState, StrategyKind } from '../../store/run-state.js';
import type { LastCheck } from '../../store/flow-checks.js';
import { baselineSideOf } from '../../store/baseline-side.js';
import type { Cell } from '../../imerge/cell.js';
import { runBaselines, runJudgedChecks, type ChecksRun } from './check-blame.js';
import { tipsChecked } from './tip-checks.js';

/** The nodes of the merge machine, in the order a run that meets no failure visits them. */
export type NodeName =
  | 'initialize'
  | 'plan_strategy'
  | 'resolve_conflicts'
  | 'check'
  | 'summarize_failure'
  | 'plan_recovery'
  | 'execute_recovery'
  | 'finalize';

export type Ctx = RunContext & NodeContext;

/**
 * A node's answer: continue at `next`, or halt. `needs_person` resumes at `next` (default: this
 * node) after the person's edit; `failed` with `next: 'end'` is final, otherwise `continue` retries.
 */
export type Result =
  | { next: NodeName | 'end'; state: RunState }
  | { halt: 'needs_person' | 'failed'; reason: string; state: RunState; next?: NodeName | 'end' };

/** One node of the merge machine. */
export type MachineNode = (state: RunState, ctx: Ctx) => Promise<Result>;

/** The checks the workflow runs after resolving: `check.workflow` names that are configured. */
export function workflowChecks(ctx: WorkflowContext): string[] {
  const names = ctx.config.check.workflow.filter((n) => n in ctx.config.check.commands);
  return names;
}

/**
 * Run the workflow checks on one commit in the check worktree. On a cell or the final merge a failure is
 * judged against the baselines (check-blame.ts): it stops the run of checks only when it is blamed on
 * the resolutions (`passed` false). On a tip every check runs and becomes that side's baseline.
 */
export async function runChecksOn(
  ctx: Ctx,
  state: RunState,
  commit: string,
  cell: Cell | null,
  target: CheckRecord['target'],
  names = workflowChecks(ctx),
): Promise<ChecksRun> {
  if (target === 'cell' || target === 'final') {
    // The tips' checks run alongside: those finished are recorded now; a failure to judge, and
    // the final merge, wait for the rest.
    const tips = await tipsChecked(state, ctx, target === 'final');
    const known = { ...state, baselines: [...state.baselines, ...tips.baselines] };
    const run = await runJudgedChecks(ctx, known, commit, cell, target, names, () => tipsChecked(known, ctx, true));
    return { ...run, records: [...tips.records, ...run.records], baselines: [...tips.baselines, ...run.baselines] };
  }
  const run = await runBaselines(ctx, state, baselineSideOf(target) ?? 'upstream', commit, cell, names);
  const failed = run.records.find((r) => !r.success);
  return { ...run, passed: failed === undefined, validated: failed === undefined };
}

/** The checks' progress record of a failed check on `cell`. */
export function lastCheck(cell: Cell, result: CheckResult, blame?: ChecksRun['blame']): LastCheck {
  return {
    cell,
    name: result.name,
    success: result.success,
    logFile: result.logFile,
    command: result.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    ...(blame ? { cwd: blame.cwd, blamed: blame.judgement.blamed, judgement: blame.judgement.reason } : {}),
  };
}

/** The state with these check records added to the run and to the current attempt, and the baselines measured with them. */
export function recordChecks(
  state: RunState,
  records: RunState['checks'],
  baselines: RunState['baselines'] = [],
): RunState {
  const attempts = state.attempts.map((a) =>
    a.number === state.currentAttempt
      ? {
          ...a,
          checks: [...a.checks, ...records.map((r) => ({ name: r.name, success: r.success, logFile: r.logFile }))],
        }
      : a,
  );
  return { ...state, checks: [...state.checks, ...records], baselines: [...state.baselines, ...baselines], attempts };
}

/** The next strategy when recovery switches: each one more conservative than the last. */
export const moreConservative: Record<StrategyKind, StrategyKind> = {
  optimistic: 'batch',
  batch: 'per_conflict',
  per_conflict: 'per_conflict',
};
