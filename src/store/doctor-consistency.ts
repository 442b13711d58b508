import type { Git } from '../git/index.js';
import { cellId } from '../imerge/cell.js';
import type { Clock } from '../util/clock.js';
import { finalCommitProblem } from './final-commit.js';
import type { RunState } from './run-state.js';
import { checkProgress, withCheckProgress } from './flow-checks.js';
import { recoveryMemory, withRecoveryMemory } from './flow-recovery.js';
import { repoPathProblem } from './sync/record-shapes.js';

/** doctor's consistency checks of a parseable run state against itself, the clock and the repository, each with its fix when there is one. */

/** A consistency problem and, when doctor can fix it, the fix. */
export interface Inconsistency {
  message: string;
  severity: 'error' | 'warning';
  fix?: (state: RunState) => { state: RunState; action: string };
}

async function objectExists(git: Git, oid: string): Promise<boolean> {
  const result = await git.run(['cat-file', '-e', `${oid}^{object}`], { okExitCodes: [0, 1, 128] });
  return result.exitCode === 0;
}

/** The run's name, start time, tips, fork branch and grid refs. */
async function identityProblems(state: RunState, name: string, git: Git, now: Date): Promise<Inconsistency[]> {
  const out: Inconsistency[] = [];
  if (state.name !== name) {
    out.push({
      severity: 'error',
      message: `state names the merge '${state.name}' but lives in the directory of '${name}'`,
      fix: (s) => ({ state: { ...s, name }, action: `set name to '${name}' (the directory's name)` }),
    });
  }
  if (Date.parse(state.startedAt) > now.getTime() + 86_400_000) {
    out.push({
      severity: 'warning',
      message: `startedAt ${state.startedAt} is in the future`,
      fix: (s) => ({ state: { ...s, startedAt: now.toISOString() }, action: `set startedAt to ${now.toISOString()}` }),
    });
  }
  if (!(await objectExists(git, state.upstream.oid))) {
    out.push({
      severity: 'error',
      message: `upstream commit ${state.upstream.oid} (${state.upstream.ref}) is not in the repository`,
    });
  }
  if (!(await objectExists(git, state.fork.originalOid))) {
    out.push({
      severity: 'error',
      message: `the original commit of ${state.fork.branch}, ${state.fork.originalOid}, is not in the repository`,
    });
  }
  if ((await git.revParse(`refs/heads/${state.fork.branch}`)) === null) {
    out.push({ severity: 'warning', message: `fork branch '${state.fork.branch}' no longer exists` });
  }
  // A finished run removed its grid's refs on purpose (finalize): only an unfinished one relies on them.
  if (state.grid !== null && state.status !== 'done' && (await git.revParse(`refs/imerge/${name}/state`)) === null) {
    out.push({
      severity: 'warning',
      message: `the state describes a grid but refs/imerge/${name}/state does not exist (the imerge refs were removed)`,
    });
  }
  return out;
}

/** Conflicts the recovery loop's data names that the run does not have. */
function strayFlowIds(state: RunState): Inconsistency[] {
  const known = new Set(state.conflicts.map((c) => c.id));
  const progress = checkProgress(state);
  const flowIds = [...progress.batch, ...progress.validated, ...Object.keys(recoveryMemory(state).retryContext)];
  const strays = [...new Set(flowIds.filter((id) => !known.has(id)))];
  if (strays.length === 0) return [];
  return [
    {
      severity: 'warning',
      message: `the recovery loop's data names conflict(s) ${strays.join(', ')} that the run does not have`,
      fix: (s) => {
        const known = (id: string): boolean => !strays.includes(id);
        const { batch, validated } = checkProgress(s);
        const retryContext = Object.entries(recoveryMemory(s).retryContext).filter(([id]) => known(id));
        const checked = withCheckProgress(s, { batch: batch.filter(known), validated: validated.filter(known) });
        const state = withRecoveryMemory(checked, { retryContext: Object.fromEntries(retryContext) });
        return { state, action: `dropped ${strays.join(', ')} from the recovery loop's data` };
      },
    },
  ];
}

function duplicateConflicts(state: RunState): Inconsistency[] {
  const seen = new Map<string, number>();
  for (const c of state.conflicts) seen.set(c.id, (seen.get(c.id) ?? 0) + 1);
  return [...seen].flatMap(([id, count]): Inconsistency[] =>
    count <= 1
      ? []
      : [
          {
            severity: 'error',
            message: `conflict ${id} is listed ${count} times`,
            fix: (s) => {
              const last = new Map(s.conflicts.map((c) => [c.id, c]));
              return {
                state: { ...s, conflicts: s.conflicts.filter((c) => last.get(c.id) === c) },
                action: `kept the last entry of conflict ${id}`,
              };
            },
          },
        ],
  );
}

/** One conflict's id, its resolution and the objects it names. */
async function conflictProblems(c: RunState['conflicts'][number], name: string, git: Git): Promise<Inconsistency[]> {
  const out: Inconsistency[] = [];
  if (c.id !== cellId(c.cell)) {
    out.push({
      severity: 'error',
      message: `conflict ${c.id} is at cell ${cellId(c.cell)}`,
      fix: (s) => ({
        state: { ...s, conflicts: s.conflicts.map((x) => (x === findSame(s, c) ? { ...x, id: cellId(x.cell) } : x)) },
        action: `renamed conflict ${c.id} to ${cellId(c.cell)}`,
      }),
    });
  }
  const strays = c.files.filter((f) => repoPathProblem(f.path) !== null);
  if (strays.length > 0) {
    // Taken from a record another machine published (a reader before record-shapes.ts): no git
    // command can name such a path, so every later step on this conflict would fail.
    const shown = strays.map((f) => `${JSON.stringify(f.path)} (${repoPathProblem(f.path)})`).join(', ');
    out.push({
      severity: 'error',
      message: `conflict ${c.id} lists file(s) whose path is not inside the repository: ${shown}`,
      fix: (s) => ({
        state: replaceConflict(s, c.id, (x) => ({
          ...x,
          files: x.files.filter((f) => repoPathProblem(f.path) === null),
        })),
        action: `dropped ${strays.length} such file(s) from conflict ${c.id}`,
      }),
    });
  }
  const manualRef = `refs/imerge/${name}/manual/${cellId(c.cell)}`;
  if (c.status === 'resolved' && c.resolutionCommit === null) {
    const recorded = await git.revParse(manualRef);
    const tree = recorded === null ? null : await git.revParse(`${recorded}^{tree}`);
    out.push({
      severity: 'error',
      message: `conflict ${c.id} is marked resolved but has no resolution commit`,
      fix: (s) => {
        if (recorded !== null) {
          return {
            state: replaceConflict(s, c.id, (x) => ({ ...x, resolutionCommit: recorded, resolutionTree: tree })),
            action: `set the resolution of ${c.id} to ${recorded} from ${manualRef}`,
          };
        }
        return {
          state: reopen(s, c.id),
          action: `reopened conflict ${c.id} (no resolution recorded; the cache makes re-resolving free)`,
        };
      },
    });
  }
  for (const [field, oid] of [
    ['resolutionCommit', c.resolutionCommit],
    ['resolutionTree', c.resolutionTree],
  ] as const) {
    if (oid !== null && !(await objectExists(git, oid))) {
      out.push({
        severity: 'error',
        message: `conflict ${c.id} names ${field} ${oid}, which is not in the repository`,
        fix: (s) => ({ state: reopen(s, c.id), action: `reopened conflict ${c.id} (its ${field} is gone)` }),
      });
    }
  }
  return out;
}

/** The attempt counter, the final commit and the hand-off against the run's status. */
async function progressProblems(state: RunState, git: Git): Promise<Inconsistency[]> {
  const out: Inconsistency[] = [];
  const maxAttempt = Math.max(0, ...state.attempts.map((a) => a.number));
  if (state.currentAttempt < maxAttempt) {
    out.push({
      severity: 'error',
      message: `currentAttempt is ${state.currentAttempt} but attempt ${maxAttempt} is recorded`,
      fix: (s) => ({ state: { ...s, currentAttempt: maxAttempt }, action: `set currentAttempt to ${maxAttempt}` }),
    });
  }
  const finalProblem = await finalCommitProblem(git, state);
  if (finalProblem !== null) {
    out.push({
      severity: 'error',
      message: `${finalProblem}; the run is not finished: run \`splintercat doctor --rebuild\` to rebuild its state from the journal and refs`,
    });
  }
  if (state.status === 'needs_person' && state.handoff === null) {
    out.push({
      severity: 'warning',
      message: 'the run needs the person but records no hand-off',
      fix: (s) => ({
        state: {
          ...s,
          handoff: {
            reason: s.statusReason ?? 'the run stopped for the person',
            conflicts: [],
            files: s.conflicts.filter((x) => x.status === 'needs_person').flatMap((x) => x.files.map((f) => f.path)),
            commands: ['splintercat status', 'splintercat continue'],
            where: null,
          },
        },
        action: 'recorded a hand-off from the conflicts that need the person',
      }),
    });
  }
  return out;
}

/** Every consistency check of a parseable state against itself, the clock and the repository. */
export async function findInconsistencies(
  state: RunState,
  name: string,
  git: Git,
  clock: Clock,
): Promise<Inconsistency[]> {
  const out = await identityProblems(state, name, git, clock.now());
  out.push(...strayFlowIds(state), ...duplicateConflicts(state));
  for (const c of state.conflicts) out.push(...(await conflictProblems(c, name, git)));
  out.push(...(await progressProblems(state, git)));
  return out;
}

function findSame(s: RunState, c: RunState['conflicts'][number]): RunState['conflicts'][number] | undefined {
  return s.conflicts.find((x) => x.id === c.id && x.cell.i1 === c.cell.i1 && x.cell.i2 === c.cell.i2);
}

function replaceConflict(
  s: RunState,
  id: string,
  f: (c: RunState['conflicts'][number]) => RunState['conflicts'][number],
): RunState {
  return { ...s, conflicts: s.conflicts.map((c) => (c.id === id ? f(c) : c)) };
}

function reopen(s: RunState, id: string): RunState {
  return replaceConflict(s, id, (c) => ({
    ...c,
    status: 'pending',
    resolutionCommit: null,
    resolutionTree: null,
    resolvedInAttempt: null,
    files: c.files.map((f) => ({
      ...f,
      hunks: f.hunks.map((h) => ({ ...h, status: 'pending', rung: null, by: null })),
    })),
  }));
}
