import type { CheckResult } from '../../checks/types.js';
import type { NodeContext, NodeResult } from '../machine/runner.js';
import type { RunContext, WorkflowContext } from '../ports.js';
import type { CheckRecord, FlowData, RunState, StrategyKind } from '../../store/run-state.js';
import type { Cell } from '../../imerge/cell.js';
import { cellId } from '../../imerge/cell.js';

export const nodeNames = [
  'initialize',
  'plan_strategy',
  'resolve_conflicts',
  'check',
  'summarize_failure',
  'plan_recovery',
  'execute_recovery',
  'finalize',
] as const;
export type NodeName = (typeof nodeNames)[number];

export type Ctx = RunContext & NodeContext;
export type Result = NodeResult<RunState, NodeName>;

/** The recovery loop's state (validated with the run state, see `flowDataSchema`). */
export function flow(state: RunState): FlowData {
  return state.data;
}

/** The state with some of its flow data replaced. */
export function withFlow(state: RunState, patch: FlowData): RunState {
  return { ...state, data: { ...state.data, ...patch } };
}

/** The checks the workflow runs after resolving: `check.workflow` names that are configured. */
export function workflowChecks(ctx: WorkflowContext): string[] {
  const names = ctx.config.check.workflow.filter((n) => n in ctx.config.check.commands);
  return names;
}

/** Run the workflow checks on one commit in the check worktree; stops at the first failure. */
export async function runChecksOn(
  ctx: Ctx,
  state: RunState,
  commit: string,
  cell: Cell | null,
  target: CheckRecord['target'],
  names = workflowChecks(ctx),
): Promise<{ passed: boolean; records: CheckRecord[]; failed?: CheckResult }> {
  const records: CheckRecord[] = [];
  if (names.length === 0) return { passed: true, records };
  const dir = await ctx.worktrees.checkout(ctx.worktrees.checkId, commit);
  for (const name of names) {
    ctx.journal.append({ type: 'check_started', name, cell, attempt: state.currentAttempt });
    ctx.log.debug({ check: name, cell, commit: commit.slice(0, 12) }, `running check '${name}'`);
    const result = await ctx.checks.run(name, { cwd: dir, signal: ctx.signal });
    const record: CheckRecord = {
      name,
      cell,
      target,
      commit,
      success: result.success,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      logFile: result.logFile,
      summary: null,
      attempt: state.currentAttempt,
      at: ctx.clock.now().toISOString(),
    };
    ctx.journal.append({ type: 'check_finished', check: record });
    ctx.log.decision({ check: name, success: result.success }, `[check] ${name} ${result.success ? 'PASSED' : 'FAILED'} on ${cell ? cellId(cell) : target} (log: ${result.logFile})`);
    records.push(record);
    if (!result.success) return { passed: false, records, failed: result };
  }
  return { passed: true, records };
}

/** The flow data's record of a failed check on `cell`. */
export function lastCheck(cell: Cell, result: CheckResult): NonNullable<FlowData['lastCheck']> {
  return { cell, name: result.name, success: result.success, logFile: result.logFile, command: result.command, exitCode: result.exitCode, timedOut: result.timedOut, durationMs: result.durationMs };
}

/** The state with these check records added to the run and to the current attempt. */
export function recordChecks(state: RunState, records: RunState['checks']): RunState {
  const attempts = state.attempts.map((a) =>
    a.number === state.currentAttempt ? { ...a, checks: [...a.checks, ...records.map((r) => ({ name: r.name, success: r.success, logFile: r.logFile }))] } : a,
  );
  return { ...state, checks: [...state.checks, ...records], attempts };
}

/** The next strategy when recovery switches: each one more conservative than the last. */
export const moreConservative: Record<StrategyKind, StrategyKind> = { optimistic: 'batch', batch: 'per_conflict', per_conflict: 'per_conflict' };
