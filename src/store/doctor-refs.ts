import type { Git, RefUpdate } from '../git/index.js';
import { getBoundaries } from '../imerge/boundaries.js';
import { cellId } from '../imerge/cell.js';
import { ALLOWED_GOALS, imergePrefix, readState, serializeState, STATE_VERSION, stateRef } from '../imerge/state.js';
import type { RunState } from './run-state.js';
import { shortOid } from '../util/short-oid.js';
import { OBJECT_LIMITS } from '../git/object-limits.js';

/** Something wrong with a run's `refs/imerge/NAME/` refs and, when doctor can fix it, how. */
export interface RefProblem {
  severity: 'error' | 'warning';
  message: string;
  /** Fix it in the repository; returns what was done, one line. */
  repair?: () => Promise<string>;
}

const cellRef = /^(auto|manual)\/(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$/;

/** What every ref check reads: the run, its merge's name and prefix, its grid's size and its refs. */
interface RefScan {
  state: RunState & { grid: NonNullable<RunState['grid']> };
  name: string;
  prefix: string;
  size1: number;
  size2: number;
  refs: Map<string, { oid: string; type: string }>;
  git: Git;
}

async function stateBlobProblems(scan: RefScan): Promise<RefProblem[]> {
  const { state, name, git } = scan;
  const blob = scan.refs.get(stateRef(name)) as { oid: string; type: string };
  const why = await stateBlobProblem(git, blob);
  if (why === null) return [];
  const repair = async (): Promise<string> => {
    const text = serializeState({
      blockers: state.grid.blockers.map((c) => [c.i1, c.i2]),
      branch: state.fork.branch,
      goal: state.goal,
      goalopts: null,
      manual: false,
      tip1: state.fork.branch,
      tip2: state.upstream.ref,
      version: STATE_VERSION,
    });
    const oid = await git.text(['hash-object', '-t', 'blob', '-w', '--stdin'], { input: text });
    await git.updateRefs(
      [{ ref: stateRef(name), newOid: oid, oldOid: blob.oid }],
      `splintercat doctor: rewrite the state blob of '${name}'`,
    );
    return `rewrote ${stateRef(name)} from the run state (goal ${state.goal}, ${state.grid.blockers.length} blocker(s))`;
  };
  return [{ severity: 'error', message: `${stateRef(name)} ${why}`, repair }];
}

function strayRefProblems({ refs, name, prefix, size1, size2, git }: RefScan): RefProblem[] {
  const strays: string[] = [];
  for (const ref of refs.keys()) {
    if (ref === stateRef(name)) continue;
    const m = cellRef.exec(ref.slice(prefix.length + 1));
    if (!m || Number(m[2]) > size1 || Number(m[3]) > size2 || refs.get(ref)?.type !== 'commit') strays.push(ref);
  }
  if (strays.length === 0) return [];
  const repair = async (): Promise<string> => {
    await git.updateRefs(
      strays.map((ref): RefUpdate => ({ ref, delete: true, oldOid: refs.get(ref)!.oid })),
      `splintercat doctor: drop stray refs of '${name}'`,
    );
    return `deleted ${strays.join(', ')}`;
  };
  const message = `stray ref(s) under ${prefix}/ that git-imerge and splintercat refuse to read: ${strays.join(', ')}`;
  return [{ severity: 'error', message, repair }];
}

function edgeRefProblems({ state, refs, name, prefix, size1, size2, git }: RefScan): RefProblem[] {
  const edges = [
    { i1: 0, i2: 0 },
    ...Array.from({ length: size1 }, (_, k) => ({ i1: k + 1, i2: 0 })),
    ...Array.from({ length: size2 }, (_, k) => ({ i1: 0, i2: k + 1 })),
  ];
  const missing = edges.filter((c) => !refs.has(`${prefix}/manual/${cellId(c)}`));
  if (missing.length === 0) return [];
  const repair = async (): Promise<string> => {
    const axes = await axesOf(git, state, size1, size2);
    if (axes === null)
      throw new Error(
        `the commits of ${state.fork.branch} and ${state.upstream.ref} from their merge base no longer form a ${size1} x ${size2} grid`,
      );
    const updates: RefUpdate[] = missing.map((c) => ({
      ref: `${prefix}/manual/${cellId(c)}`,
      newOid:
        c.i1 === 0 && c.i2 === 0
          ? axes.mergeBase
          : c.i2 === 0
            ? (axes.commits1[c.i1 - 1] as string)
            : (axes.commits2[c.i2 - 1] as string),
      oldOid: null,
    }));
    await git.updateRefs(updates, `splintercat doctor: restore the edge refs of '${name}'`);
    return `restored ${updates.length} edge ref(s) from the branches' commits`;
  };
  const names = missing.map((c) => `manual/${cellId(c)}`).join(', ');
  return [
    {
      severity: 'error',
      message: `edge ref(s) missing: ${names} (the merge base and the commits of both branches)`,
      repair,
    },
  ];
}

async function resolutionRefProblems({ state, refs, prefix, size1, size2, git }: RefScan): Promise<RefProblem[]> {
  const problems: RefProblem[] = [];
  for (const c of state.conflicts) {
    const ref = `${prefix}/manual/${cellId(c.cell)}`;
    const commit = c.resolutionCommit;
    if (c.status !== 'resolved' || commit === null || refs.has(ref) || c.cell.i1 > size1 || c.cell.i2 > size2) continue;
    // A resolution commit that is gone is the state's problem (doctor reopens the conflict), not the refs'.
    if ((await git.run(['cat-file', '-e', `${commit}^{commit}`], { okExitCodes: [0, 1, 128] })).exitCode !== 0)
      continue;
    problems.push({
      severity: 'error',
      message: `the resolution of conflict ${c.id} is not recorded in the grid (${ref} is missing)`,
      repair: async () => {
        await git.updateRefs(
          [{ ref, newOid: commit, oldOid: null }],
          `splintercat doctor: restore the resolution of ${c.id}`,
        );
        return `restored ${ref} to ${shortOid(commit)} (the recorded resolution)`;
      },
    });
  }
  return problems;
}

/**
 * The run's grid refs checked against its state: a state blob git-imerge can read, every edge
 * ref (the merge base and each commit of both branches) present, no stray ref under the
 * namespace, and the manual merge of every resolved conflict recorded. Repairs come from what
 * the state, the journal's resolutions and the two branches' commits allow; anything else is
 * reported as it is, with no repair.
 */
export async function findRefProblems(state: RunState, name: string, git: Git): Promise<RefProblem[]> {
  if (state.status === 'done' || state.grid === null) return [];
  const prefix = imergePrefix(name);
  const refs = new Map<string, { oid: string; type: string }>();
  const format = '--format=%(objectname) %(objecttype) %(refname)';
  for (const line of await git.lines(['for-each-ref', format, `${prefix}/`])) {
    const [oid, type, ref] = line.split(' ') as [string, string, string];
    refs.set(ref, { oid, type });
  }
  // No refs at all is the "imerge refs were removed" warning of the state checks; --rebuild's work.
  if (!refs.has(stateRef(name))) return [];
  const { i1: size1, i2: size2 } = state.grid.size;
  const scan: RefScan = { state: { ...state, grid: state.grid }, name, prefix, size1, size2, refs, git };
  const problems = [
    ...(await stateBlobProblems(scan)),
    ...strayRefProblems(scan),
    ...edgeRefProblems(scan),
    ...(await resolutionRefProblems(scan)),
  ];
  // Whatever the checks above did not name but git-imerge's reader still refuses.
  if (problems.length === 0) {
    try {
      await readState(git, name);
    } catch (error) {
      problems.push({
        severity: 'error',
        message: `the grid refs cannot be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      });
    }
  }
  return problems;
}

async function stateBlobProblem(git: Git, blob: { oid: string; type: string }): Promise<string | null> {
  if (blob.type !== 'blob') return `is a ${blob.type}, not a blob`;
  const read = await git.readBlobCapped(blob.oid, OBJECT_LIMITS.engineState);
  if (!read.ok) return `is ${read.reason}`;
  const text = read.text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    return 'is not valid JSON';
  }
  if (typeof parsed !== 'object' || parsed === null) return 'is not a JSON object';
  const { version, goal } = parsed as { version?: unknown; goal?: unknown };
  if (typeof version !== 'string' || !/^1\.[0-3](\.|$)/.test(version))
    return `has no supported version (${JSON.stringify(version)})`;
  if (typeof goal !== 'string' || !(ALLOWED_GOALS as readonly string[]).includes(goal))
    return `has an unknown goal (${JSON.stringify(goal)})`;
  return null;
}

/** The two branches' commits from their merge base, as the grid was made (first parents or not). */
async function axesOf(
  git: Git,
  state: RunState,
  size1: number,
  size2: number,
): Promise<{ mergeBase: string; commits1: string[]; commits2: string[] } | null> {
  for (const firstParent of [true, false]) {
    const b = await getBoundaries(git, state.fork.originalOid, state.upstream.oid, firstParent).catch(() => null);
    if (b && b.commits1.length === size1 && b.commits2.length === size2) return b;
  }
  return null;
}
