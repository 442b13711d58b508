import { basename, dirname } from 'node:path';
import { isPrintableName, printableName } from '../util/safe-print.js';
import type { Git } from '../git/index.js';
import { OBJECT_LIMITS } from '../git/object-limits.js';
import { isGoal } from '../config/goals.js';
import { cellId } from '../imerge/cell.js';
import { systemClock } from '../util/clock.js';
import type { RunEvent } from './run-events.js';
import { openRunJournal } from './run-persistence.js';
import { usageFromEvents } from './usage.js';
import { baselineSideOf, RUN_STATE_VERSION, runStateFile, runStateSchema, type RunState } from './run-state.js';
import type { DoctorDeps } from './doctor-deps.js';
import { keepCorrupt, readJsonFile, writeJsonFile } from './json-file.js';
import { conflictOf, replayEvents, type Replay } from './journal-replay.js';
import { RunStore } from './run-store.js';
import { rebuildFlowData } from './flow-rebuild.js';
import { ownHandoff, ownLogs, sameDir, worktreesOf } from './rebuild-own-dirs.js';

export interface RebuildReport {
  name: string;
  runDir: string;
  ok: boolean;
  /** What each part of the state was rebuilt from. */
  actions: string[];
  /** What could not be recovered (e.g. a person's file choices, which the journal does not hold). */
  lost: string[];
  sources: { events: number; refs: number; imergeState: boolean };
  state: RunState | null;
  /** Why nothing could be rebuilt, or what to do next. */
  hint: string | null;
}

interface ImergeState {
  blockers: [number, number][];
  goal: string;
  forkTip: string;
  upstreamTip: string;
}

/** The engine's state blob as it stores it: `tip1` is the fork's tip, `tip2` upstream's. */
type StoredImergeState = Omit<ImergeState, 'forkTip' | 'upstreamTip'> & { tip1: string; tip2: string };

/**
 * The engine's state blob, which a shared run fetches from the remote: read within its size limit,
 * typed; its names become the run's fork branch and upstream only when git takes the branch and
 * the upstream is one printable line.
 */
async function readImergeState(git: Git, name: string): Promise<ImergeState | null> {
  const read = await git.readBlobCapped(`refs/imerge/${name}/state`, OBJECT_LIMITS.engineState).catch(() => null);
  if (read === null || !read.ok) return null;
  let v: Partial<Record<keyof StoredImergeState, unknown>>;
  try {
    v = JSON.parse(read.text) as Partial<Record<keyof StoredImergeState, unknown>>;
  } catch {
    return null;
  }
  const pair = (p: unknown): p is [number, number] =>
    Array.isArray(p) && p.length === 2 && p.every((n) => Number.isInteger(n) && (n as number) >= 0);
  const forkTip = typeof v.tip1 === 'string' ? v.tip1 : '';
  const upstreamTip = typeof v.tip2 === 'string' ? v.tip2 : '';
  const branchOk =
    forkTip !== '' &&
    !forkTip.startsWith('-') &&
    (await git.run(['check-ref-format', '--branch', forkTip], { okExitCodes: [0, 1, 128] })).exitCode === 0;
  if (!branchOk || !isPrintableName(upstreamTip) || upstreamTip.length > 1024) return null;
  return {
    blockers: Array.isArray(v.blockers) ? v.blockers.filter(pair) : [],
    goal: typeof v.goal === 'string' ? v.goal : 'merge',
    forkTip,
    upstreamTip,
  };
}

function lastOf<T extends RunEvent['type']>(events: RunEvent[], type: T): Extract<RunEvent, { type: T }> | undefined {
  for (let i = events.length - 1; i >= 0; i--)
    if (events[i]?.type === type) return events[i] as Extract<RunEvent, { type: T }>;
  return undefined;
}

/** The refs of the merge recorded as commits: manual/I1-I2 (resolutions and edges) and auto/I1-I2. */
interface GridRefs {
  manual: Map<string, string>;
  maxI1: number;
  maxI2: number;
}

function gridRefs(refs: { ref: string; oid: string }[]): GridRefs {
  const manual = new Map<string, string>();
  let maxI1 = 0;
  let maxI2 = 0;
  for (const { ref, oid } of refs) {
    const m = /\/(manual|auto)\/(\d+)-(\d+)$/.exec(ref);
    if (m === null) continue;
    const i = Number(m[2]);
    const j = Number(m[3]);
    maxI1 = Math.max(maxI1, i);
    maxI2 = Math.max(maxI2, j);
    if (m[1] === 'manual') manual.set(cellId({ i1: i, i2: j }), oid);
  }
  return { manual, maxI1, maxI2 };
}

type Identity = Pick<RunState, 'name' | 'upstream' | 'fork' | 'workdir' | 'goal' | 'startedAt' | 'config'>;

/** Who the run is: from `run_started`, else from the imerge state blob and the edge refs; null when neither. */
async function rebuildIdentity(
  name: string,
  events: RunEvent[],
  imerge: ImergeState | null,
  cells: GridRefs,
  git: Git,
  now: Date,
  notes: { actions: string[]; lost: string[] },
): Promise<Identity | null> {
  const started = lastOf(events, 'run_started');
  const top = await git.topLevel();
  if (started !== undefined && !sameDir(started.workdir, top)) {
    // Another clone's start (a journal copied from elsewhere): its paths and configuration are not this run's.
    notes.lost.push(
      `the configuration of the run_started event #${started.seq}, which names another directory (${printableName(started.workdir)}): \`continue\` uses this clone's splintercat.yaml`,
    );
    notes.actions.push(`identity from the run_started event #${started.seq}, in this clone's directory`);
    const { upstream, fork, goal } = started;
    return { name, upstream, fork, workdir: top, goal, startedAt: started.ts, config: null };
  }
  if (started !== undefined) {
    if (started.config !== null)
      notes.actions.push(
        'the configuration stored at merge from the run_started event (a later `continue --set` is not journaled: give it again)',
      );
    notes.actions.push(`identity from the run_started event #${started.seq}`);
    const { upstream, fork, workdir, goal, config } = started;
    return { name, upstream, fork, workdir, goal, startedAt: started.ts, config };
  }
  const { manual, maxI1, maxI2 } = cells;
  if (imerge === null || !manual.has(`${maxI1}-0`) || !manual.has(`0-${maxI2}`)) return null;
  notes.actions.push(`identity from refs/imerge/${name}/state and the edge refs (no run_started event)`);
  notes.lost.push('the start time of the run');
  return {
    name,
    upstream: { ref: imerge.upstreamTip, oid: manual.get(`0-${maxI2}`) as string },
    fork: { branch: imerge.forkTip, originalOid: manual.get(`${maxI1}-0`) as string },
    workdir: top,
    goal: isGoal(imerge.goal) ? imerge.goal : 'merge',
    startedAt: now.toISOString(),
    config: null,
  };
}

/** The node the machine was about to run or was running, and the status that position implies. */
function rebuildPosition(events: RunEvent[]): Pick<RunState, 'phase' | 'step' | 'status' | 'statusReason'> {
  let phase = lastOf(events, 'run_started')?.phase ?? 'end';
  let step = 0;
  for (const e of events) {
    if (e.type === 'node_entered') {
      phase = e.node;
      step = e.step;
    } else if (e.type === 'node_finished') {
      phase = e.next;
      step = e.step;
    }
  }
  const outcome = lastOf(events, 'run_outcome');
  if (phase === 'end' && lastOf(events, 'finalized') !== undefined)
    return { phase, step, status: 'done', statusReason: null };
  if (outcome?.outcome === 'failed' && phase === 'end')
    return { phase, step, status: 'failed', statusReason: outcome.reason };
  // An abort that presented the resolutions under test for a fix: `continue` takes the person's fix.
  if (outcome?.outcome === 'failed' && handedInLastNode(events))
    return { phase, step, status: 'failed', statusReason: outcome.reason };
  if (outcome?.outcome === 'needs_person') return { phase, step, status: 'needs_person', statusReason: outcome.reason };
  return { phase, step, status: 'stopped', statusReason: 'rebuilt by splintercat doctor --rebuild' };
}

/**
 * The attempt under way: the planner opens the first, and each recovery that does not end the run
 * opens the next. The journal has no event for an attempt opened, and the check and resolution
 * events name only the attempts that did something, so both are counted.
 */
function attemptOf(events: RunEvent[], replayed: number): number {
  let opened = 0;
  for (const e of events) {
    if (e.type !== 'node_finished') continue;
    if (e.node === 'plan_strategy') opened = Math.max(opened, 1);
    else if (e.node === 'execute_recovery' && e.next !== 'end') opened++;
  }
  return Math.max(replayed, opened);
}

/** Whether the last node run handed conflicts to a person (its `person_needed` follows its `node_entered`). */
function handedInLastNode(events: RunEvent[]): boolean {
  const entered = lastOf(events, 'node_entered')?.seq ?? 0;
  return (lastOf(events, 'person_needed')?.seq ?? 0) > entered;
}

/** Resolutions recorded in refs but not (or not completely) in the journal; returns how many. */
async function resolutionsFromRefs(replay: Replay, manual: Map<string, string>, git: Git): Promise<number> {
  let fromRefs = 0;
  for (const [id, oid] of manual) {
    const [i, j] = id.split('-').map(Number) as [number, number];
    if (i === 0 || j === 0) continue; // edges: the original commits, not resolutions
    const c = conflictOf(replay, id, { i1: i, i2: j });
    if (c.status !== 'resolved' || c.resolutionCommit === null) {
      c.status = 'resolved';
      c.resolutionCommit = oid;
      c.resolutionTree = await git.revParse(`${oid}^{tree}`);
      c.attempts = Math.max(1, c.attempts);
      fromRefs++;
    }
  }
  return fromRefs;
}

/** The baselines are the outcomes of the checks run on the tips and on the cells' own commits. */
function baselinesFromChecks(checks: RunState['checks']): RunState['baselines'] {
  return checks.flatMap((c) => {
    const side = baselineSideOf(c.target);
    return side !== null && c.outcome && c.commit
      ? [{ side, commit: c.commit, cell: c.cell, check: c.name, outcome: c.outcome, logFile: c.logFile }]
      : [];
  });
}

/** What a rebuild read: the journal, the merge's refs and its imerge state blob. */
interface RebuildSources {
  events: RunEvent[];
  cells: GridRefs;
  imerge: ImergeState | null;
}

/** The candidate state from what was read (not yet validated), noting each source used in `actions`. */
async function assembleState(
  name: string,
  identity: Identity,
  read: RebuildSources,
  git: Git,
  now: Date,
  notes: { actions: string[]; lost: string[] },
  worktreesDir?: string,
): Promise<RunState> {
  const { actions, lost } = notes;
  const { events, cells, imerge } = read;
  const position = rebuildPosition(events);
  actions.push(`position: node '${position.phase}' after ${position.step} steps, status ${position.status}`);
  const replay = replayEvents(events);
  if (events.length > 0)
    actions.push(`conflicts, checks, attempts, usage and decisions from ${events.length} journal events`);
  const fromRefs = await resolutionsFromRefs(replay, cells.manual, git);
  if (fromRefs > 0) actions.push(`${fromRefs} resolution(s) from refs/imerge/${name}/manual/*`);
  if (replay.grid === null && imerge !== null) {
    const blockers = imerge.blockers.map(([i, j]) => ({ i1: i, i2: j }));
    replay.grid = { size: { i1: cells.maxI1, i2: cells.maxI2 }, position: null, blockers };
    actions.push(`grid from refs/imerge/${name}/ (${cells.maxI1}x${cells.maxI2}, ${blockers.length} blocker(s))`);
  }
  const handoff = ownHandoff(replay.handoff, [identity.workdir, worktreesDir ?? worktreesOf(identity)], actions);
  const logs = ownLogs(identity, actions);
  const handed = position.status === 'needs_person' || (position.status === 'failed' && position.phase !== 'end');
  if (handed && handoff === null) position.status = 'stopped';
  // The conflicts of the pending hand-off are the person's: `continue` takes their worktrees as they left them.
  if (handed && handoff !== null) {
    for (const h of handoff.conflicts) {
      const c = replay.conflicts.get(h.conflict);
      // After an abort the resolutions under test are presented as they are: resolved, and the person's to fix.
      if (c !== undefined && (c.status !== 'resolved' || position.status === 'failed')) c.status = 'needs_person';
    }
  }
  if (replay.acceptedFailures.length > 0)
    actions.push(
      `${replay.acceptedFailures.length} failure(s) a person accepted, from the journal (continue --accept-failure)`,
    );
  const checks = logs(replay.checks, 'check result(s)');
  const config = identity.config;
  const conflicts = [...replay.conflicts.values()].sort(
    (a, b) => a.cell.i1 - b.cell.i1 || a.cell.i2 - b.cell.i2 || cellId(a.cell).localeCompare(cellId(b.cell)),
  );
  const data = rebuildFlowData(events, { conflicts, checks, config }, lost);
  actions.push("the recovery loop's data (checks' progress, tips, retries) from the journal");
  return {
    version: RUN_STATE_VERSION,
    ...identity,
    updatedAt: now.toISOString(),
    ...position,
    strategy: replay.strategy,
    acceptedFailures: logs(replay.acceptedFailures, 'failure(s) a person accepted'),
    grid: replay.grid,
    conflicts,
    checks,
    baselines: baselinesFromChecks(checks),
    currentAttempt: attemptOf(events, replay.currentAttempt),
    attempts: replay.attempts.map((a) => ({ ...a, checks: logs(a.checks) })),
    pendingRecovery: null,
    usage: usageFromEvents(events),
    handoff: handed && position.status !== 'stopped' ? handoff : null,
    finalCommit: lastOf(events, 'finalized')?.commit ?? null,
    data,
  };
}

/**
 * `doctor --rebuild`: reconstruct state.json from the journal (`events.jsonl`) and the refs
 * under `refs/imerge/NAME/`, for when state.json and its backup are both gone or unusable.
 * Identity comes from `run_started` (or the imerge state blob and edge refs), the position
 * from the last node events, conflicts from conflict events and `manual/I1-I2` refs, checks,
 * attempts, usage and decisions from their events. The rebuilt run is left `stopped` so
 * `continue` resumes it. Refuses while a live process holds the run.
 */
export async function rebuildRun(runDir: string, git: Git, deps: DoctorDeps = {}): Promise<RebuildReport> {
  const clock = deps.clock ?? systemClock;
  const store = new RunStore(dirname(runDir), deps);
  const name = basename(runDir);
  const paths = store.paths(name);
  const actions: string[] = [];
  const lost: string[] = [];
  const fail = (hint: string, sources: RebuildReport['sources']): RebuildReport => ({
    ...{ name, runDir, ok: false, actions, lost, sources },
    ...{ state: null, hint },
  });

  const lock = store.lockStatus(name);
  if (lock.state === 'held') {
    const hint = `process ${lock.info.pid} on ${lock.info.host} is running this merge; stop it first`;
    return fail(hint, { events: 0, refs: 0, imergeState: false });
  }
  if (store.breakStaleLock(name)) actions.push('removed the lock of a process that is no longer running');

  const journal = openRunJournal(paths, clock);
  const events = journal.read().entries;
  const refs = await git.forEachRef(`refs/imerge/${name}/`);
  const imerge = await readImergeState(git, name);
  const sources = { events: events.length, refs: refs.length, imergeState: imerge !== null };
  const cells = gridRefs(refs);

  const identity = await rebuildIdentity(name, events, imerge, cells, git, clock.now(), { actions, lost });
  if (identity === null) {
    return fail(
      `nothing to rebuild merge '${name}' from: no run_started event in ${paths.journal} and no usable refs/imerge/${name}/ state`,
      sources,
    );
  }
  const read = { events, cells, imerge };
  const notes = { actions, lost };
  const candidate = await assembleState(name, identity, read, git, clock.now(), notes, deps.worktreesDir);
  const checked = runStateSchema.safeParse(candidate);
  if (!checked.success) {
    return fail(`the journal does not yield a valid state: ${checked.error.issues[0]?.message ?? 'unknown'}`, sources);
  }
  // A valid state.json becomes state.json.bak through the write; an unusable one is moved aside.
  const kept = readJsonFile(paths.state, runStateFile).ok ? null : keepCorrupt(paths.state, clock.now());
  if (kept !== null) actions.push(`kept the unusable state.json as ${basename(kept)}`);
  writeJsonFile(paths.state, checked.data, runStateFile);
  journal.append({ type: 'state_repaired', how: 'rebuild', repairs: actions });
  return { name, runDir, ok: true, actions, lost, sources, state: checked.data, hint: null };
}
