import { foreignConfigChanges, type Config, type StoredConfig } from '../../config/index.js';
import { UsageError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { nullLogger, type Logger } from '../../log/logger.js';
import { fetchRefs, listRemoteRefs } from '../../git/remote-refs.js';
import { OBJECT_LIMITS } from '../../git/object-limits.js';
import { recordRunStart } from '../../store/run-persistence.js';
import { parseJsonText } from '../../store/json-file.js';
import { initialRunState, runStateFile, type RunState } from '../../store/run-state.js';
import type { RunStore } from '../../store/run-store.js';
import { RunSync, syncRefs } from '../../store/sync/run-sync.js';
import { repoPathProblem } from '../../store/sync/record-shapes.js';
import { RejectedObjects } from '../../store/sync/rejected-objects.js';
import { snapshotProblem } from '../../store/sync/snapshot-problem.js';
import { isPrintableName, printableName } from '../../util/safe-print.js';
import { cellId } from '../../imerge/cell.js';
import { excludeLogs } from '../exclude-logs.js';
import { assertJoinedHistory } from './joined-history.js';
import { assertRemote } from './share-run.js';
import { machineName, writeShare } from './share-file.js';

/** The longest upstream name a snapshot may give (a ref name, or what `merge SOURCE` was given). */
const MAX_UPSTREAM_NAME = 1024;

/** What `join` set up: the run, the machine it was taken from, and the fork branch as this clone has it. */
export interface JoinOutcome {
  name: string;
  from: string;
  state: RunState;
  /** The fork branch was created here at the run's starting point (it did not exist). */
  createdBranch: boolean;
  /** The keys on which the snapshot's configuration differs from this clone's own (compared, never used). */
  differs: string[];
}

/** This clone's own configuration for the joined run, resolved as a new merge's would be. */
export interface OwnConfig {
  config: Config;
  stored: StoredConfig;
}

/**
 * Pick up run `name` from `remote` in this clone: the engine's refs, the records, and the newest
 * machine snapshot's data (the conflicts resolved, the grid), ready for `continue`. What crosses
 * the remote is data, never configuration: the run uses `own` (this clone's `splintercat.yaml` and
 * `--set`), every path is this clone's, and the snapshot's journal is not taken (its events would
 * replay another machine's effects and name its files); the snapshot's configuration is only
 * compared with `own`, its differing keys returned. What is not used is named on `log` and kept for `status`.
 */
export async function joinRun(
  git: Git,
  store: RunStore,
  remote: string,
  name: string,
  own: OwnConfig,
  log: Logger = nullLogger,
): Promise<JoinOutcome> {
  await assertRemote(git, remote);
  if (store.exists(name)) {
    throw new UsageError('merge_exists', {
      what: `A merge named '${name}' already exists in this clone`,
      fix: [`Resume it: splintercat continue --name ${name}`, `Or drop it first: splintercat abort --name ${name}`],
    });
  }
  const machines = await listRemoteRefs(git, remote, [`refs/splintercat/${name}/machines/*`]);
  if (!machines || machines.size === 0) throw runMissing(remote, name, await sharedRuns(git, remote));
  const agreed = syncRefs(name, remote).agreed;
  const seen = `refs/splintercat-remotes/snapshots/${name}/`;
  const fetched = await fetchRefs(git, remote, [
    `+refs/imerge/${name}/*:refs/imerge/${name}/*`,
    `+refs/imerge/${name}/*:${agreed}imerge/${name}/*`,
    `+refs/splintercat/${name}/machines/*:${seen}*`,
  ]);
  if (!fetched) throw runMissing(remote, name, []);
  // Said as it is met, and kept for `status`: what the remote holds that this clone will not use.
  const rejected = new RejectedObjects(
    (r, line) => log.warn({ where: r.where, why: r.why }, line),
    store.paths(name).rejected,
  );
  const sync = new RunSync(git, name, { remote, machine: await machineName(git), rejected });
  await sync.pull();
  const newest = await newestSnapshot(git, seen, rejected);
  if (!newest) throw runMissing(remote, name, []);
  const workdir = own.config.target.workdir;
  const state = joinedState(newest.state, { name, remote, workdir, config: own.stored });
  await assertSnapshotNames(git, state, { name, remote, machine: newest.machine });
  try {
    await assertJoinedHistory(git, state, { name, remote, firstParent: own.config.imerge.first_parent, log });
  } catch (error) {
    // Nothing of a refused run stays to be loaded by a later merge of the same name.
    const taken = await git.forEachRef(`refs/imerge/${name}/`);
    if (taken.length > 0) await git.updateRefs(taken.map((r) => ({ ref: r.ref, delete: true as const })));
    throw error;
  }
  const differs = foreignConfigChanges(newest.state.config, newest.state.workdir, own.stored, workdir);
  // `join` says it on the console in its own words; the log and `status` keep it like any object of
  // the remote not used.
  if (differs.length > 0) {
    const where = `refs/splintercat/${name}/machines/${newest.machine}`;
    const why = `its configuration (${differs.length} key(s) other than this clone's) is not taken`;
    rejected.add(where, why, '', true);
    log.debug({ where, why, keys: differs }, `${where}: ${why}`);
  }
  excludeLogs(await git.gitDir());
  // The run's start as this clone records it: `doctor --rebuild` takes the identity and configuration from it.
  recordRunStart(store.ensure(name), state);
  writeShare(store, name, { remote, machine: await machineName(git) });
  const branch = `refs/heads/${state.fork.branch}`;
  const createdBranch = (await git.revParse(branch)) === null;
  if (createdBranch) await git.updateRef(branch, state.fork.originalOid, null);
  return { name, from: newest.machine, state, createdBranch, differs };
}

/**
 * The state a joining clone resumes from, built afresh: of the snapshot only its data (what merges
 * into what, the strategy, the grid, the conflicts resolved, the attempts without their logs);
 * nobody's hand-off, no check of another machine (its logs are its own files, its outcomes not
 * this clone's), no flow data (`continue` finds the frontier again), and this clone's directory
 * and configuration.
 */
function joinedState(
  snapshot: RunState,
  own: { name: string; remote: string; workdir: string; config: StoredConfig },
): RunState {
  const done = snapshot.status === 'done';
  const fresh = initialRunState({
    name: own.name,
    upstream: snapshot.upstream,
    fork: snapshot.fork,
    workdir: own.workdir,
    goal: snapshot.goal,
    config: own.config,
    phase: done ? snapshot.phase : 'resolve_conflicts',
    now: new Date(),
  });
  return {
    ...fresh,
    startedAt: snapshot.startedAt,
    step: snapshot.step,
    status: done ? 'done' : 'stopped',
    statusReason: `joined from ${own.remote}`,
    strategy: snapshot.strategy,
    grid: snapshot.grid,
    conflicts: snapshot.conflicts
      .filter((c) => c.status === 'resolved')
      // A file path that leaves the repository is no file of this clone's: a hand-off never names it.
      .map((c) => ({
        ...c,
        id: cellId(c.cell),
        files: c.files.filter((f) => repoPathProblem(f.path) === null),
        blame: null,
        outsideEdits: [],
      })),
    currentAttempt: snapshot.currentAttempt,
    attempts: snapshot.attempts.map((a) => ({ ...a, checks: [] })),
    finalCommit: done ? snapshot.finalCommit : null,
    data: { checks: { batch: [] } },
  };
}

/**
 * The names the snapshot gives, which reach commands, messages and the final commit's message: the
 * fork branch must be one git takes as a branch (it is created here when missing), the upstream a
 * printable name of one line.
 */
async function assertSnapshotNames(
  git: Git,
  state: RunState,
  run: { name: string; remote: string; machine: string },
): Promise<void> {
  const branch = state.fork.branch;
  const checked = await git.run(['check-ref-format', '--branch', branch], { okExitCodes: [0, 1, 128] });
  const upstream = state.upstream.ref;
  const bad =
    checked.exitCode !== 0 || branch.startsWith('-')
      ? `a fork branch git refuses: ${printableName(branch)}`
      : !isPrintableName(upstream) || upstream.length > MAX_UPSTREAM_NAME
        ? `an upstream that is not a name of one line: ${printableName(upstream.slice(0, MAX_UPSTREAM_NAME))}`
        : null;
  if (bad === null) return;
  throw new UsageError('share_snapshot_invalid', {
    what: `The merge '${run.name}' as ${printableName(run.machine)} published it names ${bad}`,
    why: 'A machine snapshot on the remote was written by hand or by a broken splintercat',
    fix: `Ask whoever started the merge to publish it again: splintercat share ${run.remote} --name ${run.name}`,
  });
}

/** How far ahead of this clone's clock a machine's snapshot may be dated (clocks differ a little). */
const CLOCK_SKEW_MS = 3600_000;

/**
 * The most recently saved machine snapshot under `prefix`. A snapshot is read only as a commit
 * whose `state.json` and `events.jsonl` are blobs within their size limits (OBJECT_LIMITS): one
 * that is not is said, never read, and its tracking ref removed (a tracking ref never keeps what
 * was refused); the newest of the others is taken.
 */
async function newestSnapshot(
  git: Git,
  prefix: string,
  rejected: RejectedObjects,
): Promise<{ machine: string; state: RunState } | null> {
  let best: { machine: string; state: RunState } | null = null;
  for (const { ref, oid } of await git.forEachRef(prefix)) {
    const why = await snapshotProblem(git, oid);
    if (why !== null) {
      rejected.add(ref, why, oid);
      await git.deleteRef(ref, oid);
      continue;
    }
    const text = await git.readBlobCapped(`${oid}:state.json`, OBJECT_LIMITS.snapshotState);
    if (!text.ok) continue;
    const parsed = parseJsonText(text.text, runStateFile);
    if (!parsed.ok) continue;
    // "Newest" is the snapshot's own word: one dated ahead of this clone's clock would win for ever.
    const at = Date.parse(parsed.value.updatedAt);
    if (!(at <= Date.now() + CLOCK_SKEW_MS)) {
      rejected.add(
        ref,
        `it is dated ${printableName(parsed.value.updatedAt.slice(0, 40))}, ahead of this clone's clock`,
        oid,
      );
      continue;
    }
    if (best && best.state.updatedAt >= parsed.value.updatedAt) continue;
    best = { machine: ref.slice(prefix.length), state: parsed.value };
  }
  return best;
}

/** The runs shared on `remote`. */
async function sharedRuns(git: Git, remote: string): Promise<string[]> {
  const refs = await listRemoteRefs(git, remote, ['refs/splintercat/*/records']);
  return [...(refs?.keys() ?? [])].map((r) => r.split('/')[2] as string);
}

function runMissing(remote: string, name: string, others: string[]): UsageError {
  return new UsageError('share_run_missing', {
    what: `No merge named '${name}' is shared on '${remote}'`,
    why: others.length > 0 ? `Shared there: ${others.join(', ')}` : 'Nothing is shared there yet',
    fix: [
      'Check the name with the person who started it',
      `They share it with: splintercat merge SOURCE --remote ${remote} --name ${name}   (or splintercat share ${remote} for a run already going)`,
    ],
  });
}
