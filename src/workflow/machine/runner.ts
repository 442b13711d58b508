import { SplintercatError } from '../../errors/index.js';
import type { Logger } from '../../log/logger.js';
import { nullLogger } from '../../log/logger.js';
import type { Clock } from '../../util/clock.js';
import { systemClock } from '../../util/clock.js';
import type { RunEvent, RunEventInput } from '../../store/run-events.js';
import type { CursorLens, MachineCursor, StatePersistence } from '../../store/state-persistence.js';

/** The journal, as the runner and nodes use it. */
interface EventSink {
  append(event: RunEventInput): unknown;
  /** Every complete event so far (used by `once`). */
  read(): { entries: RunEvent[] };
}

/** What the runner adds to the context for one step (the run's dependencies come in `context`). */
export interface NodeContext {
  signal: AbortSignal;
  /**
   * Aborted when this drive ends (or `signal` aborts): work a node starts without waiting for it
   * (a check run alongside the next nodes) stops waiting there, and a later drive takes it up.
   */
  aside: AbortSignal;
  /** The step number of this node run (0-based, across resumes). */
  step: number;
  journal: EventSink;
  /**
   * Run `fn` at most once per `key` across kills and resumes: its JSON result is journalled
   * and a replay returns the recorded value without calling `fn` (model calls, expensive merges).
   * A call while the same key is still running waits for that run; a run that fails is not recorded.
   */
  once<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * A node's answer: continue at `next`, or halt. `needs_person` resumes at `next` (default: this
 * node) after the person's edit; `failed` with `next: 'end'` is final, otherwise `continue` retries.
 */
export type NodeResult<S, N extends string> =
  { next: N | 'end'; state: S } | { halt: 'needs_person' | 'failed'; reason: string; state: S; next?: N | 'end' };

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
  | { kind: 'needs_person'; state: S; resumeAt: N | 'end'; reason: string; resume: string }
  | {
      kind: 'failed';
      state: S;
      at: N | 'end';
      reason: string;
      retryable: boolean;
      resume: string | null;
      error?: unknown;
    };

/** What the runner's steps share: the state, moved only through `setCursor` (which saves it), and how to report. */
interface Running<S, N extends string> {
  state: S;
  lens: MachineDefinition<S, N, unknown>['cursor'];
  /** Update the cursor and save the state. */
  setCursor(patch: Partial<MachineCursor<N>>): void;
  outcomeEvent(outcome: RunOutcome<S, N>['kind'], node: string, reason: string | null): void;
  resume: string;
}

/** `once` for nodes: an effect's value is journaled the first time and replayed from the journal after. */
function onceFromJournal(journal: RunnerOptions<unknown, unknown>['journal']): NodeContext['once'] {
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
function endOutcome<S, N extends string>(run: Running<S, N>, cursor: MachineCursor<N>): RunOutcome<S, N> {
  if (cursor.status === 'failed') {
    const reason = cursor.reason ?? 'the run failed';
    return { kind: 'failed', state: run.state, at: 'end', reason, retryable: false, resume: null };
  }
  if (cursor.status !== 'done') {
    run.setCursor({ status: 'done', reason: null });
    run.outcomeEvent('done', 'end', null);
  }
  return { kind: 'done', state: run.state, steps: run.lens.get(run.state).step };
}

function stopped<S, N extends string>(run: Running<S, N>, node: N): RunOutcome<S, N> {
  run.setCursor({ status: 'stopped', reason: 'interrupted' });
  run.outcomeEvent('stopped', node, 'interrupted');
  return { kind: 'stopped', state: run.state, resumeAt: node, resume: run.resume };
}

/**
 * What a node's throw means: the stop itself while the run is being stopped (AbortError, a
 * cancelled subprocess, a model call cut short: re-run on resume), else a failure or a hand-off.
 */
function afterThrow<S, N extends string>(
  run: Running<S, N>,
  node: N,
  error: unknown,
  signal: AbortSignal,
  logger: Logger,
): RunOutcome<S, N> {
  if (signal.aborted) return stopped(run, node);
  const needsPerson = SplintercatError.isInstance(error) && error.kind === 'needs_person';
  const reason = SplintercatError.isInstance(error)
    ? error.what
    : error instanceof Error
      ? error.message
      : String(error);
  run.setCursor({ status: needsPerson ? 'needs_person' : 'failed', reason });
  run.outcomeEvent(needsPerson ? 'needs_person' : 'failed', node, reason);
  logger.error({ node, err: error }, 'workflow node failed');
  const { state, resume } = run;
  if (needsPerson) return { kind: 'needs_person', state, resumeAt: node, reason, resume };
  return { kind: 'failed', state, at: node, reason, retryable: true, resume, error };
}

/** A node that halted the run: a hand-off, or a failure (retryable unless it ended the run). */
function afterHalt<S, N extends string>(
  run: Running<S, N>,
  next: N | 'end',
  halt: 'needs_person' | 'failed',
  reason: string,
): RunOutcome<S, N> {
  const { state, resume } = run;
  if (halt === 'needs_person') return { kind: 'needs_person', state, resumeAt: next, reason, resume };
  const ended = next === 'end';
  return { kind: 'failed', state, at: next, reason, retryable: !ended, resume: ended ? null : resume };
}

/** Before running `node`: stopped, looping past `maxSteps`, or a node this version does not have. */
function beforeNode<S, N extends string>(
  run: Running<S, N>,
  node: N,
  cursor: MachineCursor<N>,
  fn: unknown,
  signal: AbortSignal,
  maxSteps: number,
): RunOutcome<S, N> | null {
  if (signal.aborted) return stopped(run, node);
  if (cursor.step >= maxSteps) {
    const reason = `stopped after ${cursor.step} steps (max ${maxSteps}) at node ${node}: the workflow is looping`;
    run.setCursor({ status: 'failed', reason });
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
  const maxSteps = options.maxSteps ?? 1000;
  const { journal, persistence } = options;
  const lens = machine.cursor;
  const persisted = persistence.load();
  const run: Running<S, N> = {
    state: persisted ?? initial,
    lens,
    setCursor: (patch) => {
      run.state = lens.set(run.state, { ...lens.get(run.state), ...patch });
      persistence.save(run.state);
    },
    outcomeEvent: (outcome, node, reason) => journal.append({ type: 'run_outcome', outcome, node, reason }),
    resume: options.resumeCommand ?? 'splintercat continue',
  };
  if (persisted === null) persistence.save(run.state);
  const once = onceFromJournal(journal as RunnerOptions<unknown, unknown>['journal']);
  const drive = new AbortController();
  const endDrive = (): void => drive.abort(new Error('the drive ended'));
  signal.addEventListener('abort', endDrive, { once: true });
  const aside = drive.signal;
  const logger = options.logger ?? nullLogger;
  const clock = options.clock ?? systemClock;
  try {
    // One node per step, until the end, a halt, an interruption or a failure.
    while (true) {
      const cursor = lens.get(run.state);
      if (cursor.node === 'end') return endOutcome(run, cursor);
      const node = cursor.node;
      const fn = machine.nodes[node];
      const early = beforeNode(run, node, cursor, fn, signal, maxSteps);
      if (early) return early;
      if (cursor.status !== 'running') run.setCursor({ status: 'running', reason: null });

      journal.append({ type: 'node_entered', node, step: cursor.step });
      const started = clock.now().getTime();
      let result: NodeResult<S, N>;
      try {
        const ctx = { ...options.context, signal, aside, step: cursor.step, journal, once } as C & NodeContext;
        result = await fn(run.state, ctx);
      } catch (error) {
        return afterThrow(run, node, error, signal, logger);
      }
      const next = result.next ?? node;
      const step = cursor.step + 1;
      run.state = result.state;
      const halted = 'halt' in result ? { status: result.halt, reason: result.reason } : null;
      run.setCursor({ node: next, step, status: halted?.status ?? 'running', reason: halted?.reason ?? null });
      journal.append({ type: 'node_finished', node, next, step, durationMs: clock.now().getTime() - started });
      if (halted) {
        run.outcomeEvent(halted.status, node, halted.reason);
        return afterHalt<S, N>(run, next, halted.status, halted.reason);
      }
    }
  } finally {
    signal.removeEventListener('abort', endDrive);
    endDrive();
  }
}
