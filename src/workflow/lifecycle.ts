import { excludeLogs } from './exclude-logs.js';
import type { Config, StoredConfig } from '../config/index.js';
import { UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import { IncrementalMerge, listImerges } from '../imerge/index.js';
import type { Logger } from '../log/logger.js';
import { RunStore } from '../store/index.js';
import { loadRunState } from '../store/run-persistence.js';
import { assertFinalCommit } from '../store/final-commit.js';
import type { RunState } from '../store/run-state.js';
import { driveRun, type ProgressListener, type RunOutcome } from './merge-run.js';
import { createRunDeps, runningChecks, type RunDepsOptions } from './run-deps.js';
import { createRun, reopenRun } from './setup.js';
import { acceptPendingFailure } from './accept-failure.js';
import { configFor } from './config-for.js';
import { findRun } from './find-run.js';
import { shellWord } from '../util/safe-print.js';
import { WorktreePool } from './worktrees.js';
import { forkAt, type ForkAt } from './finished-merge.js';
import { removeBuildDir } from './check-tree.js';
import { runBuildDir } from '../checks/from-config.js';
import { markShared } from './share/share-run.js';
import { releaseOwnClaims } from './share/release-claims.js';
import { firstTests } from '../checks/test-list.js';

/**
 * The lifecycle of a merge run — start, continue, abort — as values: each returns what
 * happened and the CLI decides how to show it and which exit code it means.
 */

/** What `splintercat merge` was asked for beyond the configuration (its flags that set keys are in it: `configFor.newMerge`). */
export interface StartSpec {
  /** What to merge into the fork: a ref or commit, as `merge UPSTREAM` was given it. */
  upstream: string;
  into?: string;
  name?: string;
  /** Drop an existing run of the same name first (as `abort` does; the resolution cache is kept). */
  restart?: boolean;
  /** Share the run through this git remote (records, engine refs, claims). */
  remote?: string;
}

/** How a run is driven: the log (opened once the run is known to start), the models' environment, Ctrl-C, --interactive. */
export interface DriveOptions {
  openLog: () => Logger;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  interactive?: RunDepsOptions['interactive'];
  /** `continue --accept-failure`: the failure the pending hand-off shows is expected at this step. */
  acceptFailure?: boolean;
  /** Told of the run's progress (every saved state and journalled event): the CLI's progress line. */
  onProgress?: ProgressListener;
  /** The models (benchmarks, tests); default: those of `llm.*` with keys from `env`. */
  gateway?: RunDepsOptions['gateway'];
}

export type DriveOutcome = RunOutcome;

/** The run to act on when no name is given: the only run, else imerge.name if it exists. */
function chooseRun(store: RunStore, config: Config): string {
  return findRun(store, config.imerge.name, true) as string;
}

/**
 * Start a merge run of `spec.upstream` into the fork branch and drive it until it finishes, stops,
 * or needs the person. `stored` is what the run's state keeps of `config` (`configFor.newMerge`), so
 * `continue` uses it too.
 */
export async function startRun(
  config: Config,
  git: Git,
  spec: StartSpec,
  options: DriveOptions,
  stored: StoredConfig | null = null,
): Promise<DriveOutcome> {
  await assertIdentity(git);
  await git.assertClean('start a merge');
  const branch = spec.into ?? (config.target.branch || (await git.currentBranch()));
  if (!branch) {
    throw new UsageError('merge_no_branch', {
      what: 'HEAD is detached and no fork branch is given',
      fix: 'Pass --into BRANCH or set target.branch in splintercat.yaml',
    });
  }
  const name = spec.name ?? config.imerge.name;
  const upstreamOid = await git.resolve(`${spec.upstream}^{commit}`);
  const forkOid = await git.resolve(`refs/heads/${branch}`);
  const store = await RunStore.forRepo(git);
  if (store.exists(name) || (await listImerges(git)).includes(name)) {
    if (!spec.restart) throw mergeExists(store, name, spec.upstream);
    const dropped = await abortRun(config, git, name);
    if (!dropped.ok)
      throw mergeExists(store, name, spec.upstream, 'it is being driven by another process right now; stop it first');
  }
  excludeLogs(await git.gitDir());
  if (spec.remote) await markShared(git, store, name, spec.remote);
  const deps = await createRunDeps(config, git, name, runDepsOptions(options));
  const checks = config.check.workflow.filter((n) => n in config.check.commands);
  if (checks.length === 0)
    deps.log.warn(
      {},
      `no check is configured (check.workflow: ${config.check.workflow.join(', ') || 'none'}; check.commands defines ${Object.keys(config.check.commands).join(', ') || 'none'}): the merge is made but not validated; define the checks in splintercat.yaml to validate it`,
    );
  const problems = deps.preflight(checks);
  if (problems.length > 0) {
    throw new UsageError('check_preflight', {
      what: 'A configured check cannot run, so the merge was not started',
      why: problems.map((p) => `${p.name}: ${p.message}`).join('\n'),
      fix: 'Fix check.commands in splintercat.yaml (or install the missing program), then run the merge again',
    });
  }
  const { run, state } = createRun(deps.store, {
    name,
    upstream: { ref: spec.upstream, oid: upstreamOid },
    fork: { branch, originalOid: forkOid },
    workdir: config.target.workdir,
    goal: 'merge',
    config: stored,
  });
  try {
    return await driveRun(run, state, deps, driveOptions(options));
  } finally {
    run.close();
  }
}

/**
 * Resume a run (after an interruption or the person's edit); `already_done` when it has finished.
 * `stored`: the configuration the run's state keeps from now on (its own plus `continue --set`).
 */
export async function continueRun(
  config: Config,
  git: Git,
  name: string | undefined,
  options: DriveOptions,
  stored: StoredConfig | null = null,
): Promise<DriveOutcome | { kind: 'already_done'; state: RunState }> {
  const store = await RunStore.forRepo(git);
  const runName = name ?? chooseRun(store, config);
  const { run, state } = reopenRun(store, runName);
  try {
    // A state that says done (or names a final commit) must name this merge's real result.
    await assertFinalCommit(git, state, run.paths.state);
    if (state.status === 'done') return { kind: 'already_done', state };
    // The machine resumes from the saved state: the configuration this run uses from now on is saved first.
    if (stored !== null && JSON.stringify(stored) !== JSON.stringify(state.config))
      run.persistence.save({ ...state, config: stored });
    const log = options.openLog();
    await endLeftoverChecks(store, runName, log);
    let resumed: RunState = {
      ...(state.status === 'running' ? state : { ...state, status: 'running', statusReason: null }),
      ...(stored === null ? {} : { config: stored }),
    };
    if (options.acceptFailure) {
      const { state: accepting, accepted } = acceptPendingFailure(resumed, new Date());
      resumed = accepting;
      // Journalled first: `doctor --rebuild` restores accepted failures from the journal.
      run.journal.append({ type: 'failure_accepted', accepted });
      run.persistence.save(resumed);
      const tests = accepted.outcome.failing;
      log.decision(
        { accepted: accepted.check, conflicts: accepted.conflicts },
        `[person] accepted check '${accepted.check}' failing at ${accepted.conflicts.join(', ')}: ${tests === null ? 'its whole outcome (no test names)' : `${tests.length} test(s): ${firstTests(tests)}`}`,
      );
    }
    const deps = await createRunDeps(config, git, runName, runDepsOptions(options, log));
    return await driveRun(run, resumed, deps, driveOptions(options));
  } finally {
    run.close();
  }
}

/**
 * What `abort` did: the run's refs, worktrees and state removed (`tip`: where the fork branch is,
 * never moved by the run); nothing, for a run whose merge is finished (`finished`: its record is
 * kept); or refused while another process drives it.
 */
export type AbortOutcome =
  | { ok: true; name: string; fork: RunState['fork'] | null; tip?: string | null; released?: string[] }
  | {
      ok: true;
      name: string;
      fork: RunState['fork'];
      upstream: string;
      finished: Extract<ForkAt, { finished: true }>;
    }
  | { ok: false; name: string; reason: 'running' };

/**
 * Remove a run's worktrees, refs and state; the fork branch was never moved, the resolution cache
 * is kept. A run whose merge is finished is left as it is: there is nothing to abort, and its record
 * is what `status` and `report` read.
 */
export async function abortRun(config: Config, git: Git, name: string | undefined): Promise<AbortOutcome> {
  const store = await RunStore.forRepo(git);
  const runName = name ?? chooseRun(store, config);
  const state = store.exists(runName) ? loadRunState(store.paths(runName)) : null;
  const at = state ? await forkAt(git, state) : null;
  if (state && at?.finished)
    return { ok: true, name: runName, fork: state.fork, upstream: state.upstream.ref, finished: at };
  if (store.exists(runName) && store.lockStatus(runName).state !== 'held')
    await endLeftoverChecks(store, runName, null);
  // The run's worktrees are where its own configuration put them, whatever the file says now
  // (never where a configuration of another clone's would: that one is not the run's).
  const own = (await configFor.storedRun(state, store)) ?? config;
  const pool = await WorktreePool.forRun(git, own, runName);
  await pool.removeRun(state?.conflicts.map((c) => c.cell) ?? []);
  removeBuildDir(runBuildDir(own, runName));
  if ((await listImerges(git)).includes(runName)) await (await IncrementalMerge.load(git, runName)).remove();
  // A shared run's conflicts this clone held are free for the others now (share.json goes with the state).
  const idle = store.exists(runName) && store.lockStatus(runName).state !== 'held';
  const released = idle ? await releaseOwnClaims(git, store, runName, own.sync.lease) : [];
  const removed = store.exists(runName) ? store.remove(runName) : { ok: true as const };
  if (!removed.ok) return { ok: false, name: runName, reason: 'running' };
  return { ok: true, name: runName, fork: state?.fork ?? null, tip: at?.tip ?? null, released };
}

/** Why `merge NAME` cannot start: what exists under that name, and the two ways on. */
function mergeExists(store: RunStore, name: string, upstream: string, why?: string): UsageError {
  let state: RunState | null = null;
  try {
    state = store.exists(name) ? loadRunState(store.paths(name)) : null;
  } catch {
    // an unreadable state still exists: say so below without its details
  }
  const what = state
    ? `A merge named '${name}' already exists: ${state.status}${state.statusReason ? ` (${state.statusReason})` : ''}, merging ${state.upstream.ref} into ${state.fork.branch}`
    : `A merge named '${name}' already exists in this repository (refs/imerge/${name} or .git/splintercat/${name})`;
  return new UsageError('merge_exists', {
    what,
    why: why ?? 'Its state is still there; starting again would mix two runs',
    fix: [
      `Resume it: splintercat continue${name === 'upstream-merge' ? '' : ` --name ${name}`}`,
      `Or drop it and start over: splintercat merge ${shellWord(upstream)} --restart${name === 'upstream-merge' ? '' : ` --name ${name}`}`,
    ],
  });
}

/**
 * Commits need an identity: check that git has one here before anything starts (a fresh
 * machine has none, and `git merge` in a worktree would fail half-way through the run).
 */
async function assertIdentity(git: Git): Promise<void> {
  const problems: string[] = [];
  for (const variable of ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT']) {
    const result = await git.run(['var', variable], { okExitCodes: [0, 128] });
    if (result.exitCode !== 0)
      problems.push(`${variable}: ${result.stderr.trim().split('\n').filter(Boolean).at(-1) ?? 'unknown'}`);
  }
  if (problems.length === 0) return;
  const dir = await git.topLevel().catch(() => git.cwd);
  throw new UsageError('git_identity_missing', {
    what: 'git has no identity to make commits with in this repository, so the merge was not started',
    why: problems.join('\n'),
    fix: [
      `Set one in this repository (in ${dir}):  git config user.name "Your Name"  and  git config user.email you@example.com`,
      'Or for every repository:  git config --global user.name "Your Name"  and  git config --global user.email you@example.com',
    ],
  });
}

/**
 * A check left running by a splintercat killed with -9 (its own process group, reparented) is
 * ended before anything else runs in its worktree; the lock is ours, so no live run owns it.
 */
async function endLeftoverChecks(store: RunStore, name: string, log: Logger | null): Promise<void> {
  for (const ended of await runningChecks(store, name).killLeftovers())
    log?.warn({ check: ended }, `ended ${ended}, left running by an earlier splintercat`);
}

function driveOptions(options: DriveOptions): Parameters<typeof driveRun>[3] {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
}

function runDepsOptions(options: DriveOptions, log: Logger = options.openLog()): RunDepsOptions {
  return {
    log,
    ...(options.env ? { env: options.env } : {}),
    ...(options.interactive ? { interactive: options.interactive } : {}),
    ...(options.gateway !== undefined ? { gateway: options.gateway } : {}),
  };
}
