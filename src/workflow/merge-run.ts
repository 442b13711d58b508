import type { Logger } from '../log/logger.js';
import type { Clock } from '../util/clock.js';
import { runMachine, type MachineDefinition, type MachineNode, type RunOutcome } from './machine/runner.js';
import { check } from './nodes/check.js';
import type { NodeName } from './nodes/common.js';
import { executeRecovery } from './nodes/execute-recovery.js';
import { finalize } from './nodes/finalize.js';
import { initialize } from './nodes/initialize.js';
import { planRecoveryNode } from './nodes/plan-recovery.js';
import { planStrategy } from './nodes/plan-strategy.js';
import { resolveConflicts } from './nodes/resolve-conflicts.js';
import { summarizeFailure } from './nodes/summarize-failure.js';
import type { GridEngine, RunContext, WorkflowContext } from './ports.js';
import { runStateCursor } from '../store/run-persistence.js';
import type { RunState } from '../store/run-state.js';
import type { RunHandle } from '../store/run-persistence.js';
import type { RunEvent } from '../store/run-events.js';
import { usageFromEvents } from '../store/usage.js';

const nodes: Record<NodeName, MachineNode<RunState, NodeName, RunContext>> = {
  initialize,
  plan_strategy: planStrategy,
  resolve_conflicts: resolveConflicts,
  check,
  summarize_failure: summarizeFailure,
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
function withUsage(ctx: WorkflowContext): Record<NodeName, MachineNode<RunState, NodeName, RunContext>> {
  const usage = ctx.gateway?.usage;
  if (!usage) return nodes;
  const wrapped = {} as Record<NodeName, MachineNode<RunState, NodeName, RunContext>>;
  for (const [name, node] of Object.entries(nodes) as [NodeName, MachineNode<RunState, NodeName, RunContext>][]) {
    wrapped[name] = async (state, nodeCtx) => {
      const result = await node(state, nodeCtx);
      return { ...result, state: { ...result.state, usage: usage.byRole() } };
    };
  }
  return wrapped;
}

/**
 * Told of every saved state (event null) and every journalled event, with the state as last saved;
 * first of the events journalled by earlier processes of the run (`replayed`, before anything runs).
 */
export type ProgressListener = (state: RunState, event: RunEvent | null, replayed?: boolean) => void;

/** Drive a run from its persisted node until it finishes, stops, or needs a human. */
export function driveRun(
  run: RunHandle,
  initial: RunState,
  ctx: WorkflowContext,
  options: { signal?: AbortSignal; logger?: Logger; clock?: Clock; onProgress?: ProgressListener } = {},
): Promise<RunOutcome<RunState, NodeName>> {
  const earlier = run.journal.read().entries;
  const runUsage = usageFromEvents(earlier);
  for (const e of earlier) options.onProgress?.(initial, e, true);
  const usage = ctx.gateway?.usage;
  usage?.carryFrom(runUsage);
  const unsubscribe = usage?.onRecord((r) => {
    const { role, modelId, inputTokens, outputTokens, costUsd, costSource } = r;
    run.journal.append({
      type: 'model_usage',
      role,
      modelId,
      conflict: r.conflict ?? null,
      inputTokens,
      outputTokens,
      costUsd,
      costSource,
    });
  });
  // The journal is the truth about spend: a kill after a call and before the node's state was saved loses nothing.
  let latest = initial;
  const persistence = {
    load: (): RunState | null => {
      const saved = run.persistence.load();
      if (saved) latest = { ...saved, usage: runUsage };
      return saved ? latest : null;
    },
    save: (state: RunState): void => {
      run.persistence.save(state);
      latest = state;
      options.onProgress?.(state, null);
    },
  };
  // Every event reaches the progress display as it is journalled (a check starting, a node ending).
  const listen = options.onProgress;
  const journal = listen
    ? {
        append: (event: Parameters<RunHandle['journal']['append']>[0]) => {
          const entry = run.journal.append(event);
          listen(latest, entry);
          return entry;
        },
        read: () => run.journal.read(),
      }
    : run.journal;
  const machine: MachineDefinition<RunState, NodeName, RunContext> = {
    nodes: withUsage(ctx),
    cursor: runStateCursor<NodeName>(),
  };
  // The grid engine is opened once per drive, by the first node that needs it (initialize starts the merge).
  let engine: Promise<GridEngine> | undefined;
  const open = (): Promise<GridEngine> =>
    ctx.engines.open({
      name: initial.name,
      forkTip: initial.target.branch,
      upstreamTip: initial.source.ref,
      branch: initial.target.branch,
      goal: initial.goal,
      firstParent: ctx.config.imerge.first_parent,
    });
  return runMachine(machine, initial, {
    persistence,
    journal,
    context: { ...ctx, engine: () => (engine ??= open()) },
    ...(options.signal ? { signal: options.signal } : {}),
    logger: options.logger ?? ctx.log,
    clock: options.clock ?? ctx.clock,
    maxSteps: 10_000,
    resumeCommand: `splintercat continue --name ${run.name}`,
  }).finally(() => unsubscribe?.());
}
