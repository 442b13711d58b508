import { basename, dirname } from 'node:path';
import type { Git } from '../git/index.js';
import { isGoal } from '../config/goals.js';
import { cellId } from '../imerge/cell.js';
import { systemClock } from '../util/clock.js';
import type { RunEvent } from './run-events.js';
import { openRunJournal } from './run-persistence.js';
import { usageFromEvents } from './usage.js';
import { RUN_STATE_VERSION, runStateFile, runStateSchema, type ConflictState, type RunState } from './run-state.js';
import type { DoctorDeps } from './doctor-deps.js';
import { keepCorrupt, readJsonFile, writeJsonFile } from './json-file.js';
import { RunStore } from './run-store.js';

export interface RebuildReport {
  name: string;
  runDir: string;
  ok: boolean;
  /** What each part of the state was rebuilt from. */
  actions: string[];
  /** What could not be recovered (e.g. node-private data). */
  lost: string[];
  sources: { events: number; refs: number; imergeState: boolean };
  state: RunState | null;
  /** Why nothing could be rebuilt, or what to do next. */
  hint: string | null;
}

interface ImergeState {
  blockers: [number, number][];
  goal: string;
  tip1: string;
  tip2: string;
}

async function readImergeState(git: Git, name: string): Promise<ImergeState | null> {
  const text = await git.readBlobText(`refs/imerge/${name}/state`).catch(() => null);
  if (text === null || text === undefined) return null;
  try {
    const v = JSON.parse(text) as Partial<ImergeState>;
    return {
      blockers: Array.isArray(v.blockers) ? v.blockers : [],
      goal: String(v.goal ?? 'merge'),
      tip1: String(v.tip1 ?? ''),
      tip2: String(v.tip2 ?? ''),
    };
  } catch {
    return null;
  }
}

function lastOf<T extends RunEvent['type']>(events: RunEvent[], type: T): Extract<RunEvent, { type: T }> | undefined {
  for (let i = events.length - 1; i >= 0; i--)
    if (events[i]?.type === type) return events[i] as Extract<RunEvent, { type: T }>;
  return undefined;
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
    name,
    runDir,
    ok: false,
    actions,
    lost,
    sources,
    state: null,
    hint,
  });

  const lock = store.lockStatus(name);
  if (lock.state === 'held') {
    return fail(`process ${lock.info.pid} on ${lock.info.host} is running this merge; stop it first`, {
      events: 0,
      refs: 0,
      imergeState: false,
    });
  }
  if (store.breakStaleLock(name)) actions.push('removed the lock of a process that is no longer running');

  const journal = openRunJournal(paths, clock);
  const events = journal.read().entries;
  const refs = await git.forEachRef(`refs/imerge/${name}/`);
  const imerge = await readImergeState(git, name);
  const sources = { events: events.length, refs: refs.length, imergeState: imerge !== null };

  // Cells recorded as commits: manual/I1-I2 (resolutions and edges) and auto/I1-I2.
  const manual = new Map<string, string>();
  let maxI1 = 0;
  let maxI2 = 0;
  for (const { ref, oid } of refs) {
    const m = /\/(manual|auto)\/(\d+)-(\d+)$/.exec(ref);
    if (m === null) continue;
    const i1 = Number(m[2]);
    const i2 = Number(m[3]);
    maxI1 = Math.max(maxI1, i1);
    maxI2 = Math.max(maxI2, i2);
    if (m[1] === 'manual') manual.set(cellId({ i1, i2 }), oid);
  }

  const started = lastOf(events, 'run_started');
  let identity: Pick<RunState, 'name' | 'source' | 'target' | 'workdir' | 'goal' | 'startedAt' | 'config'>;
  if (started !== undefined) {
    identity = {
      name,
      source: started.source,
      target: started.target,
      workdir: started.workdir,
      goal: started.goal,
      startedAt: started.ts,
      config: started.config,
    };
    if (started.config !== null)
      actions.push(
        'the configuration stored at merge from the run_started event (a later `continue --set` is not journaled: give it again)',
      );
    actions.push(`identity from the run_started event #${started.seq}`);
  } else if (imerge !== null && manual.has(`${maxI1}-0`) && manual.has(`0-${maxI2}`)) {
    identity = {
      name,
      source: { ref: imerge.tip2, oid: manual.get(`0-${maxI2}`) as string },
      target: { branch: imerge.tip1, originalOid: manual.get(`${maxI1}-0`) as string },
      workdir: await git.topLevel(),
      goal: isGoal(imerge.goal) ? imerge.goal : 'merge',
      startedAt: clock.now().toISOString(),
      config: null,
    };
    actions.push(`identity from refs/imerge/${name}/state and the edge refs (no run_started event)`);
    lost.push('the start time of the run');
  } else {
    return fail(
      `nothing to rebuild merge '${name}' from: no run_started event in ${paths.journal} and no usable refs/imerge/${name}/ state`,
      sources,
    );
  }

  // Position: the node the machine was about to run or was running.
  let phase = started?.phase ?? 'end';
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
  const finalized = lastOf(events, 'finalized');
  let status: RunState['status'] = 'stopped';
  let statusReason: string | null = 'rebuilt by splintercat doctor --rebuild';
  if (phase === 'end' && finalized !== undefined) {
    status = 'done';
    statusReason = null;
  } else if (outcome?.outcome === 'failed' && phase === 'end') {
    status = 'failed';
    statusReason = outcome.reason;
  } else if (outcome?.outcome === 'needs_human') {
    status = 'needs_human';
    statusReason = outcome.reason;
  }
  actions.push(`position: node '${phase}' after ${step} steps, status ${status}`);

  // Conflicts, in the order first seen.
  const conflicts = new Map<string, ConflictState>();
  const conflict = (id: string, cell: { i1: number; i2: number }): ConflictState => {
    let c = conflicts.get(id);
    if (c === undefined) {
      c = {
        id,
        cell,
        files: [],
        status: 'pending',
        resolutionTree: null,
        resolutionCommit: null,
        attempts: 0,
        resolvedInAttempt: null,
        blame: null,
      };
      conflicts.set(id, c);
    }
    return c;
  };
  let currentAttempt = 0;
  const usage = usageFromEvents(events);
  const checks: RunState['checks'] = [];
  const attempts: RunState['attempts'] = [];
  let strategy: RunState['strategy'] = null;
  let grid: RunState['grid'] = null;
  let human: RunState['human'] = null;
  const acceptedFailures: RunState['acceptedFailures'] = [];
  for (const e of events) {
    switch (e.type) {
      case 'conflict_found': {
        const c = conflict(e.conflict, e.cell);
        c.files = e.files.map((f) => ({
          path: f.path,
          kind: f.kind,
          hunks: Array.from({ length: f.hunks }, (_, i) => ({
            index: i + 1,
            status: 'pending' as const,
            rung: null,
            by: null,
            cacheKey: null,
          })),
        }));
        break;
      }
      case 'conflict_resolved': {
        const c = conflict(e.conflict, e.cell);
        c.status = 'resolved';
        c.attempts += 1;
        c.resolvedInAttempt = e.attempt;
        c.resolutionCommit = e.commit;
        c.resolutionTree = e.tree;
        c.blame = null;
        if (e.outsideEdits !== undefined) c.outsideEdits = e.outsideEdits;
        else delete c.outsideEdits;
        for (const f of e.files) {
          let file = c.files.find((x) => x.path === f.path);
          if (file === undefined) {
            file = { path: f.path, kind: f.kind ?? 'content', hunks: [] };
            c.files.push(file);
          } else if (f.kind !== undefined) file.kind = f.kind;
          for (const h of f.hunks) {
            const hunk = {
              index: h.index,
              status: 'resolved' as const,
              rung: h.rung,
              by: h.by,
              cacheKey: h.cacheKey ?? null,
            };
            const at = file.hunks.findIndex((x) => x.index === h.index);
            if (at >= 0) file.hunks[at] = hunk;
            else file.hunks.push(hunk);
          }
        }
        currentAttempt = Math.max(currentAttempt, e.attempt);
        break;
      }
      case 'conflict_blamed': {
        const c = conflicts.get(e.conflict);
        if (c !== undefined) {
          c.status = 'blamed';
          c.blame = e.reason;
        }
        break;
      }
      case 'check_finished':
        checks.push(e.check);
        currentAttempt = Math.max(currentAttempt, e.check.attempt);
        break;
      case 'attempt_finished':
        attempts.push(e.attempt);
        currentAttempt = Math.max(currentAttempt, e.attempt.number);
        break;
      case 'decision':
        if (
          e.kind === 'strategy' &&
          (e.decision === 'optimistic' || e.decision === 'batch' || e.decision === 'per_conflict')
        ) {
          strategy = {
            kind: e.decision,
            batchSize: e.batchSize ?? null,
            decidedBy: e.by,
            reasoning: e.reasoning,
            decidedAt: e.ts,
          };
        }
        break;
      case 'grid_updated':
        grid = e.grid;
        break;
      case 'failure_accepted':
        acceptedFailures.push(e.accepted);
        break;
      case 'human_needed':
        human = {
          reason: e.reason,
          files: e.files,
          commands: e.commands,
          where: e.conflicts?.[0]?.worktree ?? null,
          conflicts: e.conflicts ?? [],
        };
        break;
      default:
        break;
    }
  }
  if (events.length > 0)
    actions.push(`conflicts, checks, attempts, usage and decisions from ${events.length} journal events`);

  // Resolutions recorded in refs but not (or not completely) in the journal.
  let fromRefs = 0;
  for (const [id, oid] of manual) {
    const [i1, i2] = id.split('-').map(Number) as [number, number];
    if (i1 === 0 || i2 === 0) continue; // edges: the original commits, not resolutions
    const c = conflict(id, { i1, i2 });
    if (c.status !== 'resolved' || c.resolutionCommit === null) {
      c.status = 'resolved';
      c.resolutionCommit = oid;
      c.resolutionTree = await git.revParse(`${oid}^{tree}`);
      c.attempts = Math.max(1, c.attempts);
      fromRefs++;
    }
  }
  if (fromRefs > 0) actions.push(`${fromRefs} resolution(s) from refs/imerge/${name}/manual/*`);
  if (grid === null && imerge !== null) {
    const blockers = imerge.blockers.map(([i1, i2]) => ({ i1, i2 }));
    grid = { size: { i1: maxI1, i2: maxI2 }, position: null, blockers };
    actions.push(`grid from refs/imerge/${name}/ (${maxI1}x${maxI2}, ${blockers.length} blocker(s))`);
  }
  if (status === 'needs_human' && human === null) status = 'stopped';
  // The conflicts of the pending hand-off are the person's: `continue` takes their worktrees as they left them.
  if (status === 'needs_human' && human !== null) {
    for (const h of (human as NonNullable<RunState['human']>).conflicts) {
      const c = conflicts.get(h.conflict);
      if (c !== undefined && c.status !== 'resolved') c.status = 'needs_human';
    }
  }
  lost.push('node-private scratch data (state.data); replays stay free through the journal');
  if (acceptedFailures.length > 0)
    actions.push(
      `${acceptedFailures.length} failure(s) a person accepted, from the journal (continue --accept-failure)`,
    );

  const now = clock.now().toISOString();
  const candidate: RunState = {
    version: RUN_STATE_VERSION,
    ...identity,
    updatedAt: now,
    phase,
    step,
    status,
    statusReason,
    strategy,
    acceptedFailures,
    grid,
    conflicts: [...conflicts.values()].sort(
      (a, b) => a.cell.i1 - b.cell.i1 || a.cell.i2 - b.cell.i2 || cellId(a.cell).localeCompare(cellId(b.cell)),
    ),
    checks,
    // The baselines are the outcomes of the checks run on the tips and on the cells' own commits.
    baselines: checks.flatMap((c) =>
      (c.target === 'baseline-ours' || c.target === 'baseline-theirs') && c.outcome && c.commit
        ? [
            {
              side: c.target === 'baseline-ours' ? ('fork' as const) : ('upstream' as const),
              commit: c.commit,
              cell: c.cell,
              check: c.name,
              outcome: c.outcome,
              logFile: c.logFile,
            },
          ]
        : [],
    ),
    currentAttempt,
    attempts,
    pendingRecovery: null,
    usage,
    human: status === 'needs_human' ? human : null,
    finalCommit: finalized?.commit ?? null,
    data: {},
  };
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
