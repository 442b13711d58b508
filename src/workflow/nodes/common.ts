import type { CheckResult, FailureSummary } from '../../checks/types.js';
import type { NodeContext, NodeResult } from '../machine/runner.js';
import type { WorkflowContext } from '../ports.js';
import type { CheckRecord, RunState } from '../../store/run-state.js';
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

export type Ctx = WorkflowContext & NodeContext;
export type Result = NodeResult<RunState, NodeName>;

/** Scratch data the nodes keep in `state.data` (JSON only). */
export interface FlowData {
  /** Conflict ids resolved since the last passing check (the batch under test). */
  batch?: string[];
  /** Conflict ids whose resolution passed a check. */
  validated?: string[];
  /** The cell the last check ran on, and whether it failed. */
  lastCheck?: { cell: Cell; name: string; success: boolean; logFile: string; command: string; exitCode: number | null; timedOut: boolean; durationMs: number };
  /** The failure summary root cause to hand to the resolver on retries, by conflict id. */
  retryContext?: Record<string, FailureSummary>;
  /** True once the final cell passed every workflow check. */
  finalValidated?: boolean;
}

export function flow(state: RunState): FlowData {
  return state.data as FlowData;
}

export function withFlow(state: RunState, patch: Partial<FlowData>): RunState {
  return { ...state, data: { ...state.data, ...(patch as Record<string, never>) } };
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
