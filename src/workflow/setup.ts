import { SplintercatError } from '../errors/index.js';
import type { RunStore } from '../store/index.js';
import { loadRunState, openRun, recordRunStart, type RunHandle } from '../store/run-persistence.js';
import { initialRunState, type NewRun, type RunState } from '../store/run-state.js';
import { systemClock, type Clock } from '../util/clock.js';

/** Create the run directory, take its lock, write the first state and the run_started event. */
export function createRun(
  store: RunStore,
  spec: NewRun,
  clock: Clock = systemClock,
): { run: RunHandle; state: RunState } {
  const opened = openRun(store, spec.name, clock);
  if (!opened.ok) throw runLocked(spec.name, opened.holder);
  const state = initialRunState({ ...spec, phase: 'initialize', now: clock.now() });
  recordRunStart(opened.run.paths, state, clock);
  return { run: opened.run, state };
}

/** Reopen an existing run for `continue`. */
export function reopenRun(
  store: RunStore,
  name: string,
  clock: Clock = systemClock,
): { run: RunHandle; state: RunState } {
  const opened = openRun(store, name, clock);
  if (!opened.ok) throw runLocked(name, opened.holder);
  const state = loadRunState(opened.run.paths);
  if (!state) {
    opened.run.close();
    throw new SplintercatError('run_missing', {
      what: `There is no splintercat run named '${name}' to continue`,
      fix: [
        'Start one with `splintercat merge SOURCE`',
        'If the state was lost, `splintercat doctor --rebuild` reconstructs it from the journal and refs',
      ],
    });
  }
  return { run: opened.run, state };
}

function runLocked(name: string, holder: { pid: number; host: string; startedAt?: string }): SplintercatError {
  return new SplintercatError('run_locked', {
    what: `The merge '${name}' is already being driven by another splintercat (pid ${holder.pid} on ${holder.host})`,
    why: 'Two runs must never drive the same merge at once',
    fix: [
      'Wait for it to finish, or stop it with Ctrl-C',
      'If that process is gone, `splintercat doctor --repair` clears a stale lock',
    ],
  });
}
