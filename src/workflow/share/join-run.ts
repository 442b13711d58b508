import { writeFileSync } from 'node:fs';
import { UsageError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { fetchRefs, listRemoteRefs } from '../../git/remote-refs.js';
import { OBJECT_LIMITS } from '../../git/object-limits.js';
import { runStatePersistence } from '../../store/run-persistence.js';
import { parseJsonText } from '../../store/json-file.js';
import { runStateFile, type RunState } from '../../store/run-state.js';
import type { RunStore } from '../../store/run-store.js';
import { RunSync, syncRefs } from '../../store/sync/run-sync.js';
import { snapshotProblem } from '../../store/sync/snapshot-problem.js';
import { withFlow } from '../nodes/common.js';
import { assertRemote } from './share-run.js';
import { machineName, writeShare } from './share-file.js';

/** What `join` set up: the run, the machine it was taken from, and the target branch as this clone has it. */
export interface JoinOutcome {
  name: string;
  from: string;
  state: RunState;
  /** The target branch was created here at the run's starting point (it did not exist). */
  createdBranch: boolean;
}

/**
 * Pick up run `name` from `remote` in this clone: the engine's refs, the records, and the newest
 * machine snapshot as this clone's run state (its paths moved to this clone, the conflicts other
 * machines were handed left to them), ready for `continue`.
 */
export async function joinRun(git: Git, store: RunStore, remote: string, name: string): Promise<JoinOutcome> {
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
  const sync = new RunSync(git, name, { remote, machine: await machineName(git) });
  await sync.pull();
  const newest = await newestSnapshot(git, seen);
  if (!newest) throw runMissing(remote, name, []);
  const top = await git.topLevel();
  const state = joinedState(relocate(newest.state, newest.state.workdir, top) as RunState, remote);
  const paths = store.ensure(name);
  writeFileSync(paths.journal, newest.journal);
  runStatePersistence(paths).save(state);
  writeShare(store, name, { remote, machine: await machineName(git) });
  const branch = `refs/heads/${state.target.branch}`;
  const createdBranch = (await git.revParse(branch)) === null;
  if (createdBranch) await git.updateRef(branch, state.target.originalOid, null);
  return { name, from: newest.machine, state, createdBranch };
}

/** The state a joining clone resumes from: nobody's hand-off, the frontier found again by `continue`. */
function joinedState(state: RunState, remote: string): RunState {
  const kept = state.conflicts.filter((c) => c.status === 'resolved');
  const phase = state.status === 'done' ? state.phase : 'resolve_conflicts';
  return withFlow(
    {
      ...state,
      conflicts: kept,
      human: null,
      phase,
      status: state.status === 'done' ? 'done' : 'stopped',
      statusReason: state.status === 'done' ? state.statusReason : `joined from ${remote}`,
    },
    { batch: [] },
  );
}

/** Every string of `value` that starts with the other clone's directory, moved to this one's. */
function relocate(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return from && value.startsWith(from) ? to + value.slice(from.length) : value;
  if (Array.isArray(value)) return value.map((v) => relocate(v, from, to));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, relocate(v, from, to)]));
  return value;
}

/**
 * The most recently saved machine snapshot under `prefix`. A snapshot is read only as a commit
 * whose `state.json` and `events.jsonl` are blobs within their size limits (OBJECT_LIMITS): one
 * that is not is said, never read, and its tracking ref removed (a tracking ref never keeps what
 * was refused); the newest of the others is taken.
 */
async function newestSnapshot(
  git: Git,
  prefix: string,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<{ machine: string; state: RunState; journal: string } | null> {
  let best: { machine: string; oid: string; state: RunState } | null = null;
  for (const { ref, oid } of await git.forEachRef(prefix)) {
    const why = await snapshotProblem(git, oid);
    if (why !== null) {
      log(`${ref}: ${why}; skipped`);
      await git.deleteRef(ref, oid);
      continue;
    }
    const text = await git.readBlobCapped(`${oid}:state.json`, OBJECT_LIMITS.snapshotState);
    if (!text.ok) continue;
    const parsed = parseJsonText(text.text, runStateFile);
    if (!parsed.ok) continue;
    if (best && best.state.updatedAt >= parsed.value.updatedAt) continue;
    best = { machine: ref.slice(prefix.length), oid, state: parsed.value };
  }
  if (best === null) return null;
  const journal = await git.readBlobCapped(`${best.oid}:events.jsonl`, OBJECT_LIMITS.snapshotJournal);
  return { machine: best.machine, state: best.state, journal: journal.ok ? journal.text : '' };
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
