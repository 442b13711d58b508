import { SplintercatError } from '../../errors/index.js';
import type { Logger } from '../../log/logger.js';
import { nullLogger } from '../../log/logger.js';
import type { Clock } from '../../util/clock.js';
import { systemClock } from '../../util/clock.js';
import type { RunEvent, RunEventInput } from '../../store/run-events.js';
import type { CursorLens, MachineCursor, StatePersistence } from '../../store/state-persistence.js';

export type { CursorLens, MachineCursor, StatePersistence };

/** The journal, as the runner and nodes use it. */
export interface EventSink {
  append(event: RunEventInput): unknown;
  /** Every complete event so far (used by `once`). */
  read(): { entries: RunEvent[] };
}

/** What the runner adds to the context for one step (the run's dependencies come in `context`). */
export interface NodeContext {
  signal: AbortSignal;
  /** The step number of this node run (0-based, across resumes). */
  step: number;
  journal: EventSink;
  /**
   * Run `fn` at most once per `key` across kills and resumes: its JSON result is journalled
   * and a replay returns the recorded value without calling `fn` (model calls, expensive merges).
   */
  once<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * A node's answer: continue at `next`, or halt. `needs_human` resumes at `next` (default: this
 * node) after the human's edit; `failed` with `next: 'end'` is final, otherwise `continue` retries.
 */
export type NodeResult<S, N extends string> =
  { next: N | 'end'; state: S } | { halt: 'needs_human' | 'failed'; reason: string; state: S; next?: N | 'end' };

export type MachineNode<S, N extends string, C> = (state: S, ctx: C & NodeContext) => Promise<NodeResult<S, N>>;

export interface MachineDefinition<S, N extends string, C> {
  nodes: Record<N, MachineNode<S, N, C>>;
  cursor: CursorLens<S, N>;
}

export interface RunnerOptions<S, C> {
  persistence: StatePersistence<S>;
  journal: EventSink;
  /** Extra context handed to nodes (git, models, check runner, config...). */
  context: C;
  signal?: AbortSignal;
  /** Total node runs allowed (persisted steps included) before the run fails as a loop. */
  maxSteps?: number;
  logger?: Logger;
  clock?: Clock;
  /** The command that resumes this run, for outcome messages. */
  resumeCommand?: string;
}

/** How a run of the machine ended, and how to go on. */
export type RunOutcome<S, N extends string> =
  | { kind: 'done'; state: S; steps: number }
  | { kind: 'stopped'; state: S; resumeAt: N; resume: string }
  | { kind: 'needs_human'; state: S; resumeAt: N | 'end'; reason: string; resume: string }
  | {
      kind: 'failed';
      state: S;
      at: N | 'end';
      reason: string;
      retryable: boolean;
      resume: string | null;
      error?: unknown;
    };

/**
 * Execute a machine from its persisted position. After every node the new state (with the
 * cursor advanced) is saved before anything else happens, so a kill at any instant resumes at
 * the first node whose result was not saved. An abort is honoured between nodes (and by nodes
 * that pass `ctx.signal` on); a node interrupted by it is re-run on resume.
 */
export async function runMachine<S, N extends string, C>(
  machine: MachineDefinition<S, N, C>,
  initial: S,
  options: RunnerOptions<S, C>,
): Promise<RunOutcome<S, N>> {
  const signal = options.signal ?? new AbortController().signal;
  const logger = options.logger ?? nullLogger;
  const clock = options.clock ?? systemClock;
  const maxSteps = options.maxSteps ?? 1000;
  const resume = options.resumeCommand ?? 'splintercat continue';
  const { journal, persistence } = options;
  const lens = machine.cursor;

  const persisted = persistence.load();
  let state = persisted ?? initial;
  if (persisted === null) persistence.save(state);

  const setCursor = (patch: Partial<MachineCursor<N>>): void => {
    state = lens.set(state, { ...lens.get(state), ...patch });
    persistence.save(state);
  };
  const outcomeEvent = (outcome: RunOutcome<S, N>['kind'], node: string, reason: string | null): void => {
    journal.append({ type: 'run_outcome', outcome, node, reason });
  };

  const onceCache = new Map<string, unknown>();
  for (const e of journal.read().entries) if (e.type === 'effect') onceCache.set(e.key, e.value);
  const once = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    if (onceCache.has(key)) return onceCache.get(key) as T;
    const value = await fn();
    journal.append({ type: 'effect', key, value: value as never });
    onceCache.set(key, value);
    return value;
  };

  while (true) {
    const cursor = lens.get(state);
    if (cursor.node === 'end') {
      if (cursor.status === 'failed') {
        return {
          kind: 'failed',
          state,
          at: 'end',
          reason: cursor.reason ?? 'the run failed',
          retryable: false,
          resume: null,
        };
      }
      if (cursor.status !== 'done') {
        setCursor({ status: 'done', reason: null });
        outcomeEvent('done', 'end', null);
      }
      return { kind: 'done', state, steps: lens.get(state).step };
    }
    const node = cursor.node;
    if (signal.aborted) {
      setCursor({ status: 'stopped', reason: 'interrupted' });
      outcomeEvent('stopped', node, 'interrupted');
      return { kind: 'stopped', state, resumeAt: node, resume };
    }
    if (cursor.step >= maxSteps) {
      const reason = `stopped after ${cursor.step} steps (max ${maxSteps}) at node ${node}: the workflow is looping`;
      setCursor({ status: 'failed', reason });
      outcomeEvent('failed', node, reason);
      return { kind: 'failed', state, at: node, reason, retryable: false, resume: null };
    }
    const fn = machine.nodes[node];
    if (typeof fn !== 'function') {
      throw new SplintercatError('machine_unknown_node', {
        what: `The saved run state names node '${node}', which this splintercat does not have`,
        why: 'The state was written by a different version, or edited by hand',
        fix: ['Run `splintercat doctor` to check the state', 'or `splintercat abort` to drop the run'],
      });
    }
    if (cursor.status !== 'running') setCursor({ status: 'running', reason: null });

    journal.append({ type: 'node_entered', node, step: cursor.step });
    const started = clock.now().getTime();
    let result: NodeResult<S, N>;
    try {
      const ctx = { ...options.context, signal, step: cursor.step, journal, once } as C & NodeContext;
      result = await fn(state, ctx);
    } catch (error) {
      // Whatever a node throws once the run is being stopped (AbortError, a cancelled
      // subprocess, a model call cut short) is the stop itself, not a failure: re-run it on resume.
      if (signal.aborted) {
        setCursor({ status: 'stopped', reason: 'interrupted' });
        outcomeEvent('stopped', node, 'interrupted');
        return { kind: 'stopped', state, resumeAt: node, resume };
      }
      const needsHuman = SplintercatError.isInstance(error) && error.kind === 'needs_human';
      const reason = SplintercatError.isInstance(error)
        ? error.what
        : error instanceof Error
          ? error.message
          : String(error);
      setCursor({ status: needsHuman ? 'needs_human' : 'failed', reason });
      outcomeEvent(needsHuman ? 'needs_human' : 'failed', node, reason);
      logger.error({ node, err: error }, 'workflow node failed');
      if (needsHuman) return { kind: 'needs_human', state, resumeAt: node, reason, resume };
      return { kind: 'failed', state, at: node, reason, retryable: true, resume, error };
    }

    const next = result.next ?? node;
    const step = cursor.step + 1;
    state = result.state;
    if ('halt' in result) {
      setCursor({ node: next, step, status: result.halt, reason: result.reason });
      journal.append({ type: 'node_finished', node, next, step, durationMs: clock.now().getTime() - started });
      outcomeEvent(result.halt, node, result.reason);
      if (result.halt === 'needs_human')
        return { kind: 'needs_human', state, resumeAt: next, reason: result.reason, resume };
      return {
        kind: 'failed',
        state,
        at: next,
        reason: result.reason,
        retryable: next !== 'end',
        resume: next === 'end' ? null : resume,
      };
    }
    setCursor({ node: next, step, status: 'running', reason: null });
    journal.append({ type: 'node_finished', node, next, step, durationMs: clock.now().getTime() - started });
  }
}
