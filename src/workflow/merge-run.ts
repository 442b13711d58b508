import { SplintercatError } from '../errors/index.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../util/clock.js';
import { check } from './nodes/check.js';
import type { Ctx, MachineNode, NodeName, Result } from './nodes/common.js';
import type { EventSink, NodeContext } from './nodes/node-context.js';
import { executeRecovery } from './nodes/execute-recovery.js';
import { finalize } from './nodes/finalize.js';
import { initialize } from './nodes/initialize.js';
import { planRecoveryNode } from './nodes/plan-recovery.js';
import { planStrategy } from './nodes/plan-strategy.js';
import { resolveConflicts } from './nodes/resolve-conflicts.js';
import { summarizeFailure } from './nodes/summarize-failure.js';
import type { GridEngine, WorkflowContext } from './ports.js';
import type { RunState } from '../store/run-state.js';
import type { RunHandle } from '../store/run-persistence.js';
import type { RunEvent } from '../store/run-events.js';
import { usageFromEvents } from '../store/usage.js';
import { publishLast, publishing } from './share/share-run.js';

/**
 * The merge machine: the run's nodes, driven one per step from the node its state names (`phase`),
 * the state saved after each. Its position is the run state's `phase`, `step`, `status` and
 * `statusReason`.
 */
const NODES: Record<NodeName, MachineNode> = {
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
 * Told of every saved state (event null) and every journalled event, with the state as last saved;
 * first of the events journalled by earlier processes of the run (`replayed`, before anything runs).
 */
export type ProgressListener = (state: RunState, event: RunEvent | null, replayed?: boolean) => void;

/** How a drive of the machine ended, and how to go on. */
export type RunOutcome =
  | { kind: 'done'; state: RunState; steps: number }
  | { kind: 'stopped'; state: RunState; resumeAt: NodeName; resume: string }
  | { kind: 'needs_person'; state: RunState; resumeAt: NodeName | 'end'; reason: string; resume: string }
  | {
      kind: 'failed';
      state: RunState;
      at: NodeName | 'end';
      reason: string;
      retryable: boolean;
      resume: string | null;
      error?: unknown;
    };

export interface DriveSettings {
  signal?: AbortSignal;
  logger?: Logger;
  clock?: Clock;
  onProgress?: ProgressListener;
  /** Total node runs allowed (persisted steps included) before the run fails as a loop. */
  maxSteps?: number;
  /** The nodes to drive instead of the merge's (the machine's own tests). */
  nodes?: Record<NodeName, MachineNode>;
}

type Position = Pick<RunState, 'phase' | 'step' | 'status' | 'statusReason'>;

/** What the machine's steps share: the state, moved only through `move` (which saves it), and how to report. */
interface Running {
  state: RunState;
  /** Update the run's position and save the state. */
  move(patch: Partial<Position>): void;
  outcomeEvent(outcome: RunOutcome['kind'], node: string, reason: string | null): void;
  resume: string;
}

/** The state's store and journal as a drive uses them: every save and event told to `listen`, model usage journalled. */
interface DriveIo {
  load(): RunState | null;
  save(state: RunState): void;
  journal: EventSink;
  /** Stop journalling the gateway's usage records. */
  unsubscribe(): void;
}

/**
 * Model usage: every call is journalled as the gateway records it (a kill mid-node keeps it),
 * and a state loaded carries the usage the journal says the whole run spent. The journal is the
 * truth about spend: a kill after a call and before the node's state was saved loses nothing.
 */
function driveIo(run: RunHandle, initial: RunState, ctx: WorkflowContext, listen?: ProgressListener): DriveIo {
  const earlier = run.journal.read().entries;
  const runUsage = usageFromEvents(earlier);
  for (const e of earlier) listen?.(initial, e, true);
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
  let latest = initial;
  // Every event reaches the progress display as it is journalled (a check starting, a node ending).
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
  return {
    load: () => {
      const saved = run.persistence.load();
      if (saved) latest = { ...saved, usage: runUsage };
      return saved ? latest : null;
    },
    save: (state) => {
      run.persistence.save(state);
      latest = state;
      listen?.(state, null);
    },
    journal,
    unsubscribe: () => unsubscribe?.(),
  };
}

/** The grid engine, opened once per drive by the first node that needs it (initialize starts the merge). */
function engineOnce(ctx: WorkflowContext, initial: RunState): () => Promise<GridEngine> {
  let engine: Promise<GridEngine> | undefined;
  return () =>
    (engine ??= ctx.engines.open({
      name: initial.name,
      forkTip: initial.fork.branch,
      upstreamTip: initial.upstream.ref,
      branch: initial.fork.branch,
      goal: initial.goal,
      firstParent: ctx.config.imerge.first_parent,
    }));
}

/** `once` for nodes: an effect's value is journaled the first time and replayed from the journal after. */
function onceFromJournal(journal: EventSink): NodeContext['once'] {
  const onceCache = new Map<string, unknown>();
  const running = new Map<string, Promise<unknown>>();
  for (const e of journal.read().entries) if (e.type === 'effect') onceCache.set(e.key, e.value);
  return <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    if (onceCache.has(key)) return Promise.resolve(onceCache.get(key) as T);
    const inFlight = running.get(key);
    if (inFlight) return inFlight as Promise<T>;
    const run = fn()
      .then((value) => {
        journal.append({ type: 'effect', key, value: value as never });
        onceCache.set(key, value);
        return value;
      })
      .finally(() => running.delete(key));
    running.set(key, run);
    return run;
  };
}

/** At the end node: the run's outcome (marked done once). */
function endOutcome(run: Running): RunOutcome {
  const { state } = run;
  if (state.status === 'failed') {
    const reason = state.statusReason ?? 'the run failed';
    return { kind: 'failed', state, at: 'end', reason, retryable: false, resume: null };
  }
  if (state.status !== 'done') {
    run.move({ status: 'done', statusReason: null });
    run.outcomeEvent('done', 'end', null);
  }
  return { kind: 'done', state: run.state, steps: run.state.step };
}

function stopped(run: Running, node: NodeName): RunOutcome {
  run.move({ status: 'stopped', statusReason: 'interrupted' });
  run.outcomeEvent('stopped', node, 'interrupted');
  return { kind: 'stopped', state: run.state, resumeAt: node, resume: run.resume };
}

/**
 * What a node's throw means: the stop itself while the run is being stopped (AbortError, a
 * cancelled subprocess, a model call cut short: re-run on resume), else a failure or a hand-off.
 */
function afterThrow(run: Running, node: NodeName, error: unknown, signal: AbortSignal, logger: Logger): RunOutcome {
  if (signal.aborted) return stopped(run, node);
  const needsPerson = SplintercatError.isInstance(error) && error.kind === 'needs_person';
  const reason = SplintercatError.isInstance(error)
    ? error.what
    : error instanceof Error
      ? error.message
      : String(error);
  run.move({ status: needsPerson ? 'needs_person' : 'failed', statusReason: reason });
  run.outcomeEvent(needsPerson ? 'needs_person' : 'failed', node, reason);
  logger.error({ node, err: error }, 'workflow node failed');
  const { state, resume } = run;
  if (needsPerson) return { kind: 'needs_person', state, resumeAt: node, reason, resume };
  return { kind: 'failed', state, at: node, reason, retryable: true, resume, error };
}

/** A node that halted the run: a hand-off, or a failure (retryable unless it ended the run). */
function afterHalt(run: Running, next: NodeName | 'end', halt: 'needs_person' | 'failed', reason: string): RunOutcome {
  const { state, resume } = run;
  if (halt === 'needs_person') return { kind: 'needs_person', state, resumeAt: next, reason, resume };
  const ended = next === 'end';
  return { kind: 'failed', state, at: next, reason, retryable: !ended, resume: ended ? null : resume };
}

/** Before running `node`: stopped, looping past `maxSteps`, or a node this version does not have. */
function beforeNode(
  run: Running,
  node: NodeName,
  fn: MachineNode | undefined,
  signal: AbortSignal,
  maxSteps: number,
): RunOutcome | null {
  if (signal.aborted) return stopped(run, node);
  const { step } = run.state;
  if (step >= maxSteps) {
    const reason = `stopped after ${step} steps (max ${maxSteps}) at node ${node}: the workflow is looping`;
    run.move({ status: 'failed', statusReason: reason });
    run.outcomeEvent('failed', node, reason);
    return { kind: 'failed', state: run.state, at: node, reason, retryable: false, resume: null };
  }
  if (typeof fn !== 'function') {
    throw new SplintercatError('machine_unknown_node', {
      what: `The saved run state names node '${node}', which this splintercat does not have`,
      why: 'The state was written by a different version, or edited by hand',
      fix: ['Run `splintercat doctor` to check the state', 'or `splintercat abort` to drop the run'],
    });
  }
  return null;
}

/**
 * Drive a run from its persisted node until it finishes, stops, or needs a person: one node per
 * step, the new state (with the position advanced, and the model usage the gateway counted)
 * saved after every node before anything else happens, so a kill at any instant resumes at the
 * first node whose result was not saved. An abort is honoured between nodes (and by nodes that
 * pass `ctx.signal` on); a node interrupted by it is re-run on resume. A shared run
 * (`ctx.share`) is published after each saved state and once more at the end.
 */
export async function driveRun(
  handle: RunHandle,
  initial: RunState,
  ctx: WorkflowContext,
  settings: DriveSettings = {},
): Promise<RunOutcome> {
  const io = driveIo(handle, initial, ctx, publishing(ctx.share, settings.onProgress));
  const { journal } = io;
  const signal = settings.signal ?? new AbortController().signal;
  const nodes = settings.nodes ?? NODES;
  const persisted = io.load();
  const run: Running = {
    state: persisted ?? initial,
    move: (patch) => {
      run.state = { ...run.state, ...patch };
      io.save(run.state);
    },
    outcomeEvent: (outcome, node, reason) => journal.append({ type: 'run_outcome', outcome, node, reason }),
    resume: `splintercat continue --name ${handle.name}`,
  };
  if (persisted === null) io.save(run.state);
  const drive = new AbortController();
  const endDrive = (): void => drive.abort(new Error('the drive ended'));
  signal.addEventListener('abort', endDrive, { once: true });
  const base = { ...ctx, engine: engineOnce(ctx, initial), signal, aside: drive.signal, journal };
  const once = onceFromJournal(journal);
  const { logger = ctx.log, clock = ctx.clock } = settings;
  let outcome: RunOutcome;
  try {
    for (;;) {
      if (run.state.phase === 'end') {
        outcome = endOutcome(run);
        break;
      }
      const { step, status } = run.state;
      const node = run.state.phase as NodeName;
      const fn = nodes[node] as MachineNode | undefined;
      const early = beforeNode(run, node, fn, signal, settings.maxSteps ?? 10_000);
      if (early || !fn) {
        outcome = early as RunOutcome;
        break;
      }
      if (status !== 'running') run.move({ status: 'running', statusReason: null });
      journal.append({ type: 'node_entered', node, step });
      const started = clock.now().getTime();
      let result: Result;
      try {
        result = await fn(run.state, { ...base, step, once } satisfies Ctx);
      } catch (error) {
        outcome = afterThrow(run, node, error, signal, logger);
        break;
      }
      const next = result.next ?? node;
      const usage = ctx.gateway?.usage;
      run.state = usage ? { ...result.state, usage: usage.byRole() } : result.state;
      const halted = 'halt' in result ? { status: result.halt, reason: result.reason } : null;
      run.move({
        phase: next,
        step: step + 1,
        status: halted?.status ?? 'running',
        statusReason: halted?.reason ?? null,
      });
      journal.append({
        type: 'node_finished',
        node,
        next,
        step: step + 1,
        durationMs: clock.now().getTime() - started,
      });
      if (halted) {
        run.outcomeEvent(halted.status, node, halted.reason);
        outcome = afterHalt(run, next, halted.status, halted.reason);
        break;
      }
    }
  } finally {
    signal.removeEventListener('abort', endDrive);
    endDrive();
    io.unsubscribe();
  }
  await publishLast(ctx.share, outcome.state);
  return outcome;
}
