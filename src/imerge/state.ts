import { SplintercatError } from '../errors/index.js';
import type { Git, RefUpdate } from '../git/index.js';
import { GOALS } from '../config/goals.js';
import { Grid } from './grid.js';
import { cellId } from './cell.js';
import { objectsDirectory, writeLooseObject } from './merger.js';

/** git-imerge's state format version (STATE_VERSION in git-imerge 1.2.0). */
export const STATE_VERSION = '1.3.0';

/** Goals git-imerge 1.2.0 accepts. */
export const ALLOWED_GOALS = [...GOALS, 'drop', 'revert'] as const;

/** The state blob at `refs/imerge/NAME/state`, exactly as git-imerge writes it. */
export interface StateBlob {
  blockers: [number, number][];
  branch: string;
  goal: string;
  goalopts: unknown;
  manual: boolean;
  tip1: string;
  tip2: string;
  version: string;
}

export const imergePrefix = (name: string): string => `refs/imerge/${name}`;
export const stateRef = (name: string): string => `refs/imerge/${name}/state`;
export const scratchRef = (name: string): string => `refs/heads/imerge/${name}`;

/** The state blob's text: JSON with sorted keys and git-imerge's separators, plus a trailing newline. */
export function serializeState(state: StateBlob): string {
  const sorted = Object.fromEntries(Object.entries(state).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  // Python's json.dumps default separators are ', ' and ': '.
  return `${pyJson(sorted)}\n`;
}

function pyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyString(k)}: ${pyJson(v)}`)
      .join(', ')}}`;
  }
  if (typeof value === 'string') return pyString(value);
  return JSON.stringify(value);
}

/** Python's json.dumps escapes every non-ASCII character (ensure_ascii). */
function pyString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function corrupt(name: string, what: string): SplintercatError {
  return new SplintercatError('imerge_state_corrupt', {
    what: `The state of incremental merge '${name}' is unusable: ${what}`,
    why: 'The refs under refs/imerge/ were edited by hand, written by an incompatible tool, or partly deleted',
    fix: [`Inspect it: git for-each-ref ${imergePrefix(name)}/`, `Start over: splintercat imerge remove --name ${name}`],
    where: imergePrefix(name),
  });
}

/** What was read from the refs: the state blob, the grid, and every ref's current value (for old-value checks). */
export interface LoadedState {
  state: StateBlob;
  grid: Grid;
  /** refname -> oid as read, including the state ref. */
  refs: Map<string, string>;
}

/**
 * Read an incremental merge's refs and state blob with git-imerge's validation rules. The refs are
 * listed without their object types: asking for them costs an object lookup per ref, which on a
 * large grid's thousands of loose objects took most of a `continue`; the state blob's type is
 * checked as it is read, and a cell that is not a commit fails where it is merged.
 */
export async function readState(git: Git, name: string): Promise<LoadedState> {
  const prefix = imergePrefix(name);
  const lines = await git.lines(['for-each-ref', '--format=%(objectname) %(refname)', `${prefix}/`]);
  const refs = new Map<string, string>();
  const merges = new Map<string, { oid: string; manual: boolean }>();
  const unexpected: string[] = [];
  let stateOid: string | null = null;
  const re = new RegExp(`^${escapeRe(prefix)}/(auto|manual)/(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$`);
  let maxI1 = 0;
  let maxI2 = 0;
  for (const line of lines) {
    const [oid, ref] = line.split(' ') as [string, string];
    refs.set(ref, oid);
    const m = re.exec(ref);
    if (m) {
      const key = `${m[2]}-${m[3]}`;
      const manual = m[1] === 'manual';
      const prev = merges.get(key);
      if (!prev || manual) merges.set(key, { oid, manual });
      maxI1 = Math.max(maxI1, Number(m[2]));
      maxI2 = Math.max(maxI2, Number(m[3]));
      continue;
    }
    if (ref === `${prefix}/state`) {
      stateOid = oid;
      continue;
    }
    unexpected.push(ref);
  }
  if (stateOid === null) {
    throw new SplintercatError('imerge_not_found', {
      what: `There is no incremental merge called '${name}'`,
      why: `No state blob at ${stateRef(name)}`,
      fix: ['List the existing ones: splintercat imerge list', 'Start one: splintercat imerge start --name NAME BRANCH'],
    });
  }
  if (unexpected.length > 0) throw corrupt(name, `unexpected reference(s): ${unexpected.join(', ')}`);
  const blob = await git.readObject(stateOid);
  if (blob?.type !== 'blob') throw corrupt(name, `reference ${stateRef(name)} is not a blob`);
  let state: StateBlob;
  try {
    state = JSON.parse(blob.content.toString('utf8')) as StateBlob;
  } catch {
    throw corrupt(name, 'the state blob is not valid JSON');
  }
  const version = String(state.version ?? '').split('.').map(Number);
  if (version[0] !== 1 || (version[1] ?? 0) > 3) throw corrupt(name, `state version ${String(state.version)} is not supported`);
  if (!(ALLOWED_GOALS as readonly string[]).includes(state.goal)) throw corrupt(name, `goal '${state.goal}' is not recognised`);
  const edge = (i1: number, i2: number): { oid: string; manual: boolean } | undefined => merges.get(cellId({ i1, i2 }));
  const base = edge(0, 0);
  if (!base?.manual) throw corrupt(name, 'the merge base (manual/0-0) is missing');
  let len1 = 1;
  while (edge(len1, 0)) {
    if (!edge(len1, 0)?.manual) throw corrupt(name, `merge ${len1}-0 should be manual`);
    len1++;
  }
  let len2 = 1;
  while (edge(0, len2)) {
    if (!edge(0, len2)?.manual) throw corrupt(name, `merge 0-${len2} should be manual`);
    len2++;
  }
  if (maxI1 >= len1 || maxI2 >= len2) throw corrupt(name, `a merge is out of range [0:${len1},0:${len2}] (an edge commit is missing)`);
  const grid = new Grid(len1, len2);
  for (const [key, v] of merges) {
    const [a, b] = key.split('-').map(Number) as [number, number];
    const cell = grid.cell(a, b);
    cell.oid = v.oid;
    cell.manual = v.manual;
  }
  for (const [a, b] of state.blockers ?? []) {
    if (a >= len1 || b >= len2) throw corrupt(name, `blocker ${a}-${b} is out of range`);
    grid.cell(a, b).blocked = true;
  }
  state.tip1 ??= grid.cell(len1 - 1, 0).oid as string;
  state.tip2 ??= grid.cell(0, len2 - 1).oid as string;
  state.branch ??= name;
  return { state, grid, refs };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Write the grid and state blob as one atomic ref transaction, checking every old value, so a kill at
 * any instant leaves either the old or the new state. Returns the refs as now written.
 */
export async function writeState(
  git: Git,
  name: string,
  state: StateBlob,
  grid: Grid,
  current: Map<string, string>,
): Promise<Map<string, string>> {
  const prefix = imergePrefix(name);
  const desired = new Map<string, string>();
  for (let i1 = 0; i1 < grid.len1; i1++) {
    for (let i2 = 0; i2 < grid.len2; i2++) {
      const c = grid.cell(i1, i2);
      if (c.oid !== null) desired.set(`${prefix}/${c.manual ? 'manual' : 'auto'}/${cellId({ i1, i2 })}`, c.oid);
    }
  }
  // Written in-process (no hash-object): the blob is the same when nothing changed, and then
  // no ref is updated at all.
  const blob = await writeLooseObject(await objectsDirectory(git), 'blob', Buffer.from(serializeState({ ...state, blockers: grid.blockers() }), 'utf8'));
  desired.set(stateRef(name), blob);
  const updates: RefUpdate[] = [];
  for (const [ref, oid] of desired) {
    const old = current.get(ref);
    if (old !== oid) updates.push({ ref, newOid: oid, oldOid: old ?? null });
  }
  for (const [ref, old] of current) if (!desired.has(ref)) updates.push({ ref, delete: true, oldOid: old });
  await git.updateRefs(updates, `imerge '${name}': Record state`);
  return desired;
}
