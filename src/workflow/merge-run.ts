import type { Logger } from '../log/logger.js';
import type { Clock } from '../util/clock.js';
import { runMachine, type MachineDefinition, type MachineNode, type RunOutcome } from './machine/runner.js';
import { check, summarize } from './nodes/check.js';
import type { NodeName } from './nodes/common.js';
import { finalize } from './nodes/finalize.js';
import { executeRecovery, planRecoveryNode } from './nodes/recovery.js';
import { resolveConflicts } from './nodes/resolve-conflicts.js';
import { initialize, planStrategy } from './nodes/start.js';
import type { WorkflowContext } from './ports.js';
import { runStateCursor } from './state/persistence.js';
import type { RunState } from './state/run-state.js';
import type { RunHandle } from './state/persistence.js';

const nodes: Record<NodeName, MachineNode<RunState, NodeName, WorkflowContext>> = {
  initialize,
  plan_strategy: planStrategy,
  resolve_conflicts: resolveConflicts,
  check,
  summarize_failure: summarize,
  plan_recovery: planRecoveryNode,
  execute_recovery: executeRecovery,
  finalize,
};

/**
 * Model usage is counted by the gateway in memory; after every node the new calls
 * are added to the persisted totals (so `status` and the report survive restarts).
 */
function withUsage(ctx: WorkflowContext): Record<NodeName, MachineNode<RunState, NodeName, WorkflowContext>> {
  let seen = ctx.gateway?.usage.records.length ?? 0;
  const wrapped = {} as Record<NodeName, MachineNode<RunState, NodeName, WorkflowContext>>;
  for (const [name, node] of Object.entries(nodes) as [NodeName, MachineNode<RunState, NodeName, WorkflowContext>][]) {
    wrapped[name] = async (state, nodeCtx) => {
      const result = await node(state, nodeCtx);
      const records = ctx.gateway?.usage.records ?? [];
      if (records.length === seen) return result;
      const usage = structuredClone(result.state.usage);
      for (const r of records.slice(seen)) {
        const t = usage[r.role];
        t.calls += 1;
        t.inputTokens += r.inputTokens;
        t.outputTokens += r.outputTokens;
        t.costUsd += r.costUsd;
        if (r.costSource === 'unknown') t.unpricedCalls += 1;
        const { role, modelId, inputTokens, outputTokens, costUsd, costSource } = r;
        nodeCtx.journal.append({ type: 'model_usage', role, modelId, conflict: r.conflict ?? null, inputTokens, outputTokens, costUsd, costSource });
      }
      seen = records.length;
      return { ...result, state: { ...result.state, usage } };
    };
  }
  return wrapped;
}

/** Drive a run from its persisted node until it finishes, stops, or needs a human. */
export function driveRun(
  run: RunHandle,
  initial: RunState,
  ctx: WorkflowContext,
  options: { signal?: AbortSignal; logger?: Logger; clock?: Clock } = {},
): Promise<RunOutcome<RunState, NodeName>> {
  const machine: MachineDefinition<RunState, NodeName, WorkflowContext> = { nodes: withUsage(ctx), cursor: runStateCursor<NodeName>() };
  return runMachine(machine, initial, {
    persistence: run.persistence,
    journal: run.journal,
    context: ctx,
    ...(options.signal ? { signal: options.signal } : {}),
    logger: options.logger ?? ctx.log,
    ...(options.clock ? { clock: options.clock } : {}),
    maxSteps: 10_000,
    resumeCommand: `splintercat continue --name ${run.name}`,
  });
}
