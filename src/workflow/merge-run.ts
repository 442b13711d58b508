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
import { runStateCursor } from '../store/run-persistence.js';
import type { RunState } from '../store/run-state.js';
import type { RunHandle } from '../store/run-persistence.js';
import { usageFromEvents } from '../store/usage.js';

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
 * Model usage: every call is journalled as the gateway records it (a kill mid-node keeps
 * it), and after every node the persisted totals are the gateway's, which carry what
 * earlier processes of this run spent (so `status`, the report and `budget.usd` count the
 * whole run across resumes).
 */
function withUsage(ctx: WorkflowContext): Record<NodeName, MachineNode<RunState, NodeName, WorkflowContext>> {
  const usage = ctx.gateway?.usage;
  if (!usage) return nodes;
  const wrapped = {} as Record<NodeName, MachineNode<RunState, NodeName, WorkflowContext>>;
  for (const [name, node] of Object.entries(nodes) as [NodeName, MachineNode<RunState, NodeName, WorkflowContext>][]) {
    wrapped[name] = async (state, nodeCtx) => {
      const result = await node(state, nodeCtx);
      return { ...result, state: { ...result.state, usage: usage.byRole() } };
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
  const runUsage = usageFromEvents(run.journal.read().entries);
  const usage = ctx.gateway?.usage;
  usage?.carryFrom(runUsage);
  const unsubscribe = usage?.onRecord((r) => {
    const { role, modelId, inputTokens, outputTokens, costUsd, costSource } = r;
    run.journal.append({ type: 'model_usage', role, modelId, conflict: r.conflict ?? null, inputTokens, outputTokens, costUsd, costSource });
  });
  // The journal is the truth about spend: a kill after a call and before the node's state was saved loses nothing.
  const persistence = {
    load: (): RunState | null => {
      const saved = run.persistence.load();
      return saved ? { ...saved, usage: runUsage } : null;
    },
    save: (state: RunState): void => run.persistence.save(state),
  };
  const machine: MachineDefinition<RunState, NodeName, WorkflowContext> = { nodes: withUsage(ctx), cursor: runStateCursor<NodeName>() };
  return runMachine(machine, initial, {
    persistence,
    journal: run.journal,
    context: ctx,
    ...(options.signal ? { signal: options.signal } : {}),
    logger: options.logger ?? ctx.log,
    clock: options.clock ?? ctx.clock,
    maxSteps: 10_000,
    resumeCommand: `splintercat continue --name ${run.name}`,
  }).finally(() => unsubscribe?.());
}
