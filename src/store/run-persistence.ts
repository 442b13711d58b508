import { SplintercatError } from '../errors/index.js';
import { readJsonFile, writeJsonFile } from './json-file.js';
import { Journal } from './journal.js';
import type { LockInfo, RunLock, RunPaths, RunStore } from './run-store.js';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import type { StatePersistence } from './state-persistence.js';
import { parseRunEvent, type RunEvent } from './run-events.js';
import { runStateFile, type RunState } from './run-state.js';

/** Read `state.json`, or throw an actionable error naming doctor when it is unusable. Missing → null. */
export function loadRunState(paths: Pick<RunPaths, 'state'>): RunState | null {
  const read = readJsonFile(paths.state, runStateFile);
  if (read.ok) return read.value;
  if (read.problem === 'missing') return null;
  throw new SplintercatError('state_unreadable', {
    what: `The run state ${paths.state} cannot be used (${read.problem})`,
    why: read.detail,
    fix:
      read.problem === 'version'
        ? ['Use the splintercat version that started this merge', 'or `splintercat abort` to drop it']
        : [
            'Run `splintercat doctor --repair` to restore it from state.json.bak',
            'or `splintercat doctor --rebuild` to rebuild it from the journal and refs',
          ],
    where: paths.state,
  });
}

/** Persistence of a run state in its run directory: atomic write + backup, `updatedAt` stamped. */
export function runStatePersistence(
  paths: Pick<RunPaths, 'state'>,
  clock: Clock = systemClock,
): StatePersistence<RunState> {
  return {
    load: () => loadRunState(paths),
    save: (state) => writeJsonFile(paths.state, { ...state, updatedAt: clock.now().toISOString() }, runStateFile),
  };
}

/** The run's event journal, validating each line against the event union. */
export function openRunJournal(paths: Pick<RunPaths, 'journal'>, clock: Clock = systemClock): Journal<RunEvent> {
  return new Journal<RunEvent>(paths.journal, { clock, parse: parseRunEvent });
}

/**
 * Record the start of a run: the initial state.json and the `run_started` event that
 * `doctor --rebuild` takes the run's identity from. Call once, holding the run's lock.
 */
export function recordRunStart(
  paths: Pick<RunPaths, 'state' | 'journal'>,
  state: RunState,
  clock: Clock = systemClock,
): Journal<RunEvent> {
  const journal = openRunJournal(paths, clock);
  runStatePersistence(paths, clock).save(state);
  journal.append({
    type: 'run_started',
    name: state.name,
    upstream: state.upstream,
    fork: state.fork,
    workdir: state.workdir,
    goal: state.goal,
    phase: state.phase,
    config: state.config,
  });
  return journal;
}

/** A run opened for driving: its lock held, its journal and state persistence ready. */
export interface RunHandle {
  name: string;
  paths: RunPaths;
  journal: Journal<RunEvent>;
  persistence: StatePersistence<RunState>;
  lock: RunLock;
  /** Release the lock (idempotent). */
  close(): void;
}

/**
 * Take a run's lock and open its journal and state for the runner. `{ok:false}` names the live
 * holder (the CLI turns it into "merge NAME is already running (pid, host, since)").
 */
export function openRun(
  store: RunStore,
  name: string,
  clock: Clock = systemClock,
): { ok: true; run: RunHandle } | { ok: false; holder: LockInfo } {
  const acquired = store.acquire(name);
  if (!acquired.ok) return { ok: false, holder: acquired.holder };
  const paths = store.paths(name);
  const lock = acquired.lock;
  return {
    ok: true,
    run: {
      name,
      paths,
      journal: openRunJournal(paths, clock),
      persistence: runStatePersistence(paths, clock),
      lock,
      close: () => lock.release(),
    },
  };
}
