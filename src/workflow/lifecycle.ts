import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config, GoalName, StrategyName } from '../config/index.js';
import { UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import { IncrementalMerge, listImerges } from '../imerge/index.js';
import type { Logger } from '../log/logger.js';
import { RunStore } from '../store/index.js';
import { loadRunState } from '../store/run-persistence.js';
import type { RunState } from '../store/run-state.js';
import type { RunOutcome } from './machine/runner.js';
import { driveRun } from './merge-run.js';
import type { NodeName } from './nodes/common.js';
import { createRunDeps, type RunDepsOptions } from './run-deps.js';
import { createRun, reopenRun } from './setup.js';
import { WorktreePool } from './worktrees.js';

/**
 * The lifecycle of a merge run — start, continue, abort — as values: each returns what
 * happened and the CLI decides how to show it and which exit code it means.
 */

/** What `splintercat merge` was asked for, beyond the configuration. */
export interface StartSpec {
  source: string;
  into?: string;
  name?: string;
  goal?: GoalName;
  strategy?: StrategyName;
  resolver?: Config['merge']['resolver'];
  firstParent?: boolean;
}

/** How a run is driven: the log (opened once the run is known to start), the models' environment, Ctrl-C, --interactive. */
export interface DriveOptions {
  openLog: () => Logger;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  interactive?: RunDepsOptions['interactive'];
}

export type DriveOutcome = RunOutcome<RunState, NodeName>;

/** The configuration of a run started with `spec` (a copy: the loaded configuration is not changed). */
export function startConfig(config: Config, spec: StartSpec): Config {
  const goal = spec.goal ?? config.imerge.goal;
  if (goal !== 'merge') {
    throw new UsageError('merge_goal', {
      what: `splintercat merge finishes with goal 'merge' only (got '${goal}')`,
      fix: ['Use --goal merge', `For other goals use the engine directly: splintercat imerge start --goal ${goal} ...`],
    });
  }
  return {
    ...config,
    imerge: { ...config.imerge, goal, ...(spec.firstParent === false ? { first_parent: false } : {}) },
    merge: { ...config.merge, ...(spec.strategy ? { strategy: spec.strategy } : {}), ...(spec.resolver ? { resolver: spec.resolver } : {}) },
  };
}

/** The run to act on when no name is given: imerge.name if it exists, else the only run. */
export function chooseRun(store: RunStore, config: Config): string {
  if (store.exists(config.imerge.name)) return config.imerge.name;
  const runs = store.list().map((r) => r.name);
  if (runs.length === 1) return runs[0] as string;
  throw new UsageError('run_name_needed', {
    what: runs.length === 0 ? 'There is no splintercat merge in this repository' : 'Several merges exist; say which with --name',
    fix: runs.length === 0 ? 'Start one: splintercat merge SOURCE' : `Existing: ${runs.join(', ')}`,
  });
}

/** Start a merge run of `spec.source` into the target branch and drive it until it finishes, stops, or needs a human. */
export async function startRun(loaded: Config, git: Git, spec: StartSpec, options: DriveOptions): Promise<DriveOutcome> {
  const config = startConfig(loaded, spec);
  await git.assertClean('start a merge');
  const branch = spec.into ?? (config.target.branch || (await git.currentBranch()));
  if (!branch) {
    throw new UsageError('merge_no_branch', { what: 'HEAD is detached and no target branch is given', fix: 'Pass --into BRANCH or set target.branch in splintercat.yaml' });
  }
  const name = spec.name ?? config.imerge.name;
  const sourceOid = await git.resolve(`${spec.source}^{commit}`);
  const targetOid = await git.resolve(`refs/heads/${branch}`);
  const store = await RunStore.forRepo(git);
  if (store.exists(name) || (await listImerges(git)).includes(name)) {
    throw new UsageError('merge_exists', {
      what: `A merge named '${name}' already exists in this repository`,
      why: 'Its state (refs/imerge or .git/splintercat) is still there',
      fix: ['Resume it: splintercat continue', `Or drop it: splintercat abort --name ${name}`, 'Or choose another name with --name'],
    });
  }
  excludeLogs(await git.gitDir());
  const deps = await createRunDeps(config, git, name, runDepsOptions(options));
  const problems = deps.preflight(config.check.workflow.filter((n) => n in config.check.commands));
  if (problems.length > 0) {
    throw new UsageError('check_preflight', {
      what: 'A configured check cannot run, so the merge was not started',
      why: problems.map((p) => `${p.name}: ${p.message}`).join('\n'),
      fix: 'Fix check.commands in splintercat.yaml (or install the missing program), then run the merge again',
    });
  }
  const { run, state } = createRun(deps.store, {
    name,
    source: { ref: spec.source, oid: sourceOid },
    target: { branch, originalOid: targetOid },
    workdir: config.target.workdir,
    goal: config.imerge.goal,
  });
  try {
    return await driveRun(run, state, deps, options.signal ? { signal: options.signal } : {});
  } finally {
    run.close();
  }
}

/** Resume a run (after an interruption or a human's edit); `already_done` when it has finished. */
export async function continueRun(config: Config, git: Git, name: string | undefined, options: DriveOptions): Promise<DriveOutcome | { kind: 'already_done'; state: RunState }> {
  const store = await RunStore.forRepo(git);
  const runName = name ?? chooseRun(store, config);
  const { run, state } = reopenRun(store, runName);
  try {
    if (state.status === 'done') return { kind: 'already_done', state };
    const resumed: RunState = state.status === 'running' ? state : { ...state, status: 'running', statusReason: null };
    const deps = await createRunDeps(config, git, runName, runDepsOptions(options));
    return await driveRun(run, resumed, deps, options.signal ? { signal: options.signal } : {});
  } finally {
    run.close();
  }
}

/** What `abort` did: the run's refs, worktrees and state removed, or refused while another process drives it. */
export type AbortOutcome = { ok: true; name: string; target: RunState['target'] | null } | { ok: false; name: string; reason: 'running' };

/** Remove a run's worktrees, refs and state; the target branch was never moved, the resolution cache is kept. */
export async function abortRun(config: Config, git: Git, name: string | undefined): Promise<AbortOutcome> {
  const store = await RunStore.forRepo(git);
  const runName = name ?? chooseRun(store, config);
  const state = store.exists(runName) ? loadRunState(store.paths(runName)) : null;
  const pool = await WorktreePool.forRun(git, runName);
  await pool.removeRun(state?.conflicts.map((c) => c.cell) ?? []);
  if ((await listImerges(git)).includes(runName)) await (await IncrementalMerge.load(git, runName)).removeRefs();
  const removed = store.exists(runName) ? store.remove(runName) : { ok: true as const };
  if (!removed.ok) return { ok: false, name: runName, reason: 'running' };
  return { ok: true, name: runName, target: state?.target ?? null };
}

function runDepsOptions(options: DriveOptions): RunDepsOptions {
  return { log: options.openLog(), ...(options.env ? { env: options.env } : {}), ...(options.interactive ? { interactive: options.interactive } : {}) };
}

/** Keep splintercat's logs out of `git status` (they live in the working tree by default). */
function excludeLogs(gitDir: string): void {
  mkdirSync(join(gitDir, 'info'), { recursive: true });
  const exclude = join(gitDir, 'info', 'exclude');
  const text = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
  if (!text.split('\n').includes('.splintercat/')) appendFileSync(exclude, `${text === '' || text.endsWith('\n') ? '' : '\n'}.splintercat/\n`);
}
