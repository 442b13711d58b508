import { join } from 'node:path';
import type { ModelGateway } from '../agents/index.js';
import { extractFailure } from '../checks/extract-failure.js';
import type { CheckResult, CheckRunnerLike, FailureSummary } from '../checks/types.js';
import type { Config } from '../config/index.js';
import { SplintercatError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import type { Logger } from '../log/logger.js';
import { ladderFromConfig } from '../resolve/index.js';
import type { RunStore } from '../store/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { imergeEngines } from './imerge-adapter.js';
import type { WorkflowContext } from './ports.js';
import { loadRunState, openRun, recordRunStart, type RunHandle } from '../store/run-persistence.js';
import { initialRunState, type RunState } from '../store/run-state.js';
import { WorktreePool } from './worktrees.js';

export interface ContextDeps {
  checks: CheckRunnerLike;
  gateway: ModelGateway | null;
  extractFailure?: (log: string, result: CheckResult) => FailureSummary | null;
  log: Logger;
  approver?: WorkflowContext['approver'];
}

/** The nodes' context for a run of `name` in the repository `git` works on. */
export async function buildWorkflowContext(config: Config, git: Git, name: string, deps: ContextDeps): Promise<WorkflowContext> {
  const gitDir = await git.gitDir();
  const cores = (await import('node:os')).availableParallelism();
  const extract = deps.extractFailure ?? ((log: string, result: CheckResult) => extractFailure(log, { timedOut: result.timedOut }));
  return {
    git,
    config,
    engines: imergeEngines(git, config.merge.jobs > 0 ? config.merge.jobs : cores),
    checks: deps.checks,
    worktrees: new WorktreePool(git, join(gitDir, 'splintercat', name, 'worktrees')),
    ladder: await ladderFromConfig(config.resolve, git),
    gateway: deps.gateway,
    extractFailure: (log, result) => extract?.(log, result) ?? fallbackSummary(log, result),
    log: deps.log,
    approver: deps.approver ?? null,
  };
}

/** When no parser recognises the log: the check's name, exit code and last lines. */
function fallbackSummary(log: string, result: CheckResult): FailureSummary {
  const tail = log.split('\n').filter(Boolean).slice(-15).join('\n');
  return {
    error_type: result.timedOut ? 'timeout' : 'test_failure',
    location: null,
    root_cause: result.timedOut ? `check '${result.name}' timed out` : `check '${result.name}' failed with exit code ${result.exitCode ?? 'none'}`,
    excerpt: tail,
  };
}

export interface NewRun {
  name: string;
  source: { ref: string; oid: string };
  target: { branch: string; originalOid: string };
  workdir: string;
  goal?: RunState['goal'];
}

/** Create the run directory, take its lock, write the first state and the run_started event. */
export function createRun(store: RunStore, spec: NewRun, clock: Clock = systemClock): { run: RunHandle; state: RunState } {
  const opened = openRun(store, spec.name, clock);
  if (!opened.ok) throw runLocked(spec.name, opened.holder);
  const state = initialRunState({ ...spec, phase: 'initialize', now: clock.now() });
  recordRunStart(opened.run.paths, state, clock);
  return { run: opened.run, state };
}

/** Reopen an existing run for `continue`. */
export function reopenRun(store: RunStore, name: string, clock: Clock = systemClock): { run: RunHandle; state: RunState } {
  const opened = openRun(store, name, clock);
  if (!opened.ok) throw runLocked(name, opened.holder);
  const state = loadRunState(opened.run.paths);
  if (!state) {
    opened.run.close();
    throw new SplintercatError('run_missing', {
      what: `There is no splintercat run named '${name}' to continue`,
      fix: ['Start one with `splintercat merge SOURCE`', 'If the state was lost, `splintercat doctor --rebuild` reconstructs it from the journal and refs'],
    }, 2);
  }
  return { run: opened.run, state };
}

function runLocked(name: string, holder: { pid: number; host: string; startedAt?: string }): SplintercatError {
  return new SplintercatError('run_locked', {
    what: `The merge '${name}' is already being driven by another splintercat (pid ${holder.pid} on ${holder.host})`,
    why: 'Two runs must never drive the same merge at once',
    fix: ['Wait for it to finish, or stop it with Ctrl-C', 'If that process is gone, `splintercat doctor --repair` clears a stale lock'],
  });
}
