import { printableName } from '../util/safe-print.js';
import { SplintercatError } from '../errors/index.js';
import type { Git, RefUpdate } from '../git/index.js';
import { GOALS } from '../config/goals.js';
import { Grid } from './grid.js';
import { cellId } from './cell.js';
import { objectsDirectory, writeLooseObject } from './loose-objects.js';
import { OBJECT_LIMITS } from '../git/object-limits.js';

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
    fix: [
      `Inspect it: git for-each-ref ${imergePrefix(name)}/`,
      `Start over: splintercat imerge remove --name ${name}`,
    ],
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

/** A merge's refs as listed: every ref, and the cell refs in parallel arrays (a grid's worth: no object per ref). */
interface ScannedRefs {
  refs: Map<string, string>;
  i1s: number[];
  i2s: number[];
  manuals: boolean[];
  oids: string[];
  stateOid: string | null;
  maxI1: number;
  maxI2: number;
}

async function scanRefs(git: Git, name: string): Promise<ScannedRefs> {
  const prefix = imergePrefix(name);
  const scan: ScannedRefs = {
    ...{ refs: new Map(), i1s: [], i2s: [], manuals: [], oids: [] },
    ...{ stateOid: null, maxI1: 0, maxI2: 0 },
  };
  const unexpected: string[] = [];
  const re = cellRefPattern(name);
  for (const { oid, ref } of await git.forEachRef(`${prefix}/`)) {
    scan.refs.set(ref, oid);
    const m = re.exec(ref);
    if (m) {
      const a = Number(m[2]);
      const b = Number(m[3]);
      scan.i1s.push(a);
      scan.i2s.push(b);
      scan.manuals.push(m[1] === 'manual');
      scan.oids.push(oid);
      if (a > scan.maxI1) scan.maxI1 = a;
      if (b > scan.maxI2) scan.maxI2 = b;
    } else if (ref === `${prefix}/state`) scan.stateOid = oid;
    else unexpected.push(ref);
  }
  if (scan.stateOid === null) {
    throw new SplintercatError('imerge_not_found', {
      what: `There is no incremental merge called '${name}'`,
      why: `No state blob at ${stateRef(name)}`,
      fix: [
        'List the existing ones: splintercat imerge list',
        'Start one: splintercat imerge start --name NAME BRANCH',
      ],
    });
  }
  if (unexpected.length > 0) throw corrupt(name, `unexpected reference(s): ${unexpected.join(', ')}`);
  return scan;
}

/** The state blob, checked: a blob, JSON, a version and goal git-imerge knows. */
async function readStateBlob(git: Git, name: string, oid: string): Promise<StateBlob> {
  // A shared run fetches this ref from its remote: read within a limit, by type and size first.
  const blob = await git.readCapped(oid, { type: 'blob', maxBytes: OBJECT_LIMITS.engineState });
  if (!blob.ok) throw corrupt(name, `reference ${stateRef(name)} is ${blob.reason}`);
  let state: StateBlob;
  try {
    state = JSON.parse(blob.object.content.toString('utf8')) as StateBlob;
  } catch {
    throw corrupt(name, 'the state blob is not valid JSON');
  }
  const version = String(state.version ?? '')
    .split('.')
    .map(Number);
  if (version[0] !== 1 || (version[1] ?? 0) > 3)
    throw corrupt(name, `state version ${String(state.version)} is not supported`);
  if (!(ALLOWED_GOALS as readonly string[]).includes(state.goal))
    throw corrupt(name, `goal '${printableName(String(state.goal))}' is not recognised`);
  // Its fields are used as they are typed: a blocker that is not a pair of indices, or a name that is
  // not a string, is a corrupt state, said as such, never a crash where it is used.
  const pair = (p: unknown): boolean =>
    Array.isArray(p) && p.length === 2 && p.every((n) => Number.isInteger(n) && (n as number) >= 0);
  if (state.blockers !== undefined && !(Array.isArray(state.blockers) && state.blockers.every(pair)))
    throw corrupt(name, 'its blockers are not pairs of cell indices');
  for (const key of ['branch', 'tip1', 'tip2'] as const)
    if (state[key] !== undefined && state[key] !== null && typeof state[key] !== 'string')
      throw corrupt(name, `its ${key} is not a name`);
  return state;
}

/** The grid's size from its edges (each a manual ref), every cell ref within it. */
function gridSize(name: string, scan: ScannedRefs): { len1: number; len2: number } {
  const edges = new Map<string, { manual: boolean }>();
  for (let k = 0; k < scan.oids.length; k++) {
    if (scan.i1s[k] !== 0 && scan.i2s[k] !== 0) continue;
    const key = cellId({ i1: scan.i1s[k] as number, i2: scan.i2s[k] as number });
    if (!edges.get(key)?.manual) edges.set(key, { manual: scan.manuals[k] as boolean });
  }
  const edge = (i1: number, i2: number): { manual: boolean } | undefined => edges.get(cellId({ i1, i2 }));
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
  if (scan.maxI1 >= len1 || scan.maxI2 >= len2)
    throw corrupt(name, `a merge is out of range [0:${len1},0:${len2}] (an edge commit is missing)`);
  return { len1, len2 };
}

/** Put each cell ref in the grid (a manual ref replaces an auto ref of the same cell); returns the per-cell view. */
function fillGrid(grid: Grid, scan: ScannedRefs): CellRefs {
  const cells: CellRefs = new Map();
  for (let k = 0; k < scan.oids.length; k++) {
    const a = scan.i1s[k] as number;
    const b = scan.i2s[k] as number;
    const manual = scan.manuals[k] as boolean;
    const oid = scan.oids[k] as string;
    const cell = grid.cell(a, b);
    if (cell.oid === null || manual) {
      cell.oid = oid;
      cell.manual = manual;
    }
    const key = a * grid.len2 + b;
    const had = cells.get(key);
    if (had) had[manual ? 'manual' : 'auto'] = oid;
    else cells.set(key, manual ? { manual: oid } : { auto: oid });
  }
  return cells;
}

/**
 * Read an incremental merge's refs and state blob with git-imerge's validation rules. The refs are
 * listed without their object types: asking for them costs an object lookup per ref, which on a
 * large grid's thousands of loose objects took most of a `continue`; the state blob's type is
 * checked as it is read, and a cell that is not a commit fails where it is merged.
 */
export async function readState(git: Git, name: string): Promise<LoadedState> {
  const scan = await scanRefs(git, name);
  const state = await readStateBlob(git, name, scan.stateOid as string);
  const { len1, len2 } = gridSize(name, scan);
  const grid = new Grid(len1, len2);
  const cells = fillGrid(grid, scan);
  for (const [a, b] of state.blockers ?? []) {
    if (a >= len1 || b >= len2) throw corrupt(name, `blocker ${a}-${b} is out of range`);
    grid.cell(a, b).blocked = true;
  }
  state.tip1 ??= grid.cell(len1 - 1, 0).oid as string;
  state.tip2 ??= grid.cell(0, len2 - 1).oid as string;
  state.branch ??= name;
  cellRefsOf.set(scan.refs, { len1, len2, cells, others: new Set() });
  return { state, grid, refs: scan.refs };
}

/** The cell refs of a merge as read or last written, per cell (index i1 * len2 + i2): the oid of each kind present. */
type CellRefs = Map<number, { auto?: string; manual?: string }>;

/**
 * The per-cell view of each refs map readState returned or writeState wrote, so a save compares
 * each cell with what is stored without naming every ref of the grid again (a large grid has tens of
 * thousands of cells, and a `continue` saves several times). A map from elsewhere is indexed once, from its ref names.
 */
const cellRefsOf = new WeakMap<Map<string, string>, CellIndex>();

interface CellIndex {
  len1: number;
  len2: number;
  cells: CellRefs;
  /** Refs of the map that are neither the state nor a cell of the grid: a save deletes them. */
  others: Set<string>;
}

function cellRefs(name: string, current: Map<string, string>, grid: Grid): CellIndex {
  const known = cellRefsOf.get(current);
  if (known?.len1 === grid.len1 && known.len2 === grid.len2) return known;
  const index: CellIndex = { len1: grid.len1, len2: grid.len2, cells: new Map(), others: new Set() };
  const re = cellRefPattern(name);
  for (const [ref, oid] of current) {
    const m = re.exec(ref);
    const [i1, i2] = m ? [Number(m[2]), Number(m[3])] : [-1, -1];
    if (m && i1 < grid.len1 && i2 < grid.len2) {
      const k = i1 * grid.len2 + i2;
      index.cells.set(k, { ...index.cells.get(k), [m[1] as 'auto' | 'manual']: oid });
    } else if (ref !== stateRef(name)) index.others.add(ref);
  }
  cellRefsOf.set(current, index);
  return index;
}

/** A cell ref of the merge `name`: groups 1 its kind (auto, manual), 2 and 3 its coordinates. */
function cellRefPattern(name: string): RegExp {
  return new RegExp(`^${escapeRe(imergePrefix(name))}/(auto|manual)/(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$`);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Write the grid and state blob as one atomic ref transaction, checking every old value, so a kill at
 * any instant leaves either the old or the new state. Only the cells that differ from `current` are
 * written. Returns the refs as now written (`current`, updated once the transaction committed).
 */
export async function writeState(
  git: Git,
  name: string,
  state: StateBlob,
  grid: Grid,
  current: Map<string, string>,
): Promise<Map<string, string>> {
  const prefix = imergePrefix(name);
  const index = cellRefs(name, current, grid);
  const { cells } = index;
  const updates: RefUpdate[] = [];
  const changed: Array<[number, { auto?: string; manual?: string }]> = [];
  for (let i1 = 0; i1 < grid.len1; i1++) {
    for (let i2 = 0; i2 < grid.len2; i2++) {
      const c = grid.cell(i1, i2);
      const k = i1 * grid.len2 + i2;
      const had = cells.get(k);
      const wantAuto = c.oid !== null && !c.manual ? c.oid : undefined;
      const wantManual = c.oid !== null && c.manual ? c.oid : undefined;
      if (had?.auto === wantAuto && had?.manual === wantManual) continue;
      const want = {
        ...(wantAuto !== undefined ? { auto: wantAuto } : {}),
        ...(wantManual !== undefined ? { manual: wantManual } : {}),
      };
      changed.push([k, want]);
      for (const kind of ['auto', 'manual'] as const) {
        const ref = `${prefix}/${kind}/${cellId({ i1, i2 })}`;
        const old = had?.[kind];
        const next = want[kind];
        if (old === next) continue;
        updates.push(
          next === undefined
            ? { ref, delete: true, oldOid: old as string }
            : { ref, newOid: next, oldOid: old ?? null },
        );
      }
    }
  }
  // Refs outside the grid's cells (none that readState accepts; a caller's map may have them) go.
  for (const ref of index.others) updates.push({ ref, delete: true, oldOid: current.get(ref) as string });
  // Written in-process (no hash-object): the blob is the same when nothing changed, and then
  // no ref is updated at all.
  const blob = await writeLooseObject(
    await objectsDirectory(git),
    'blob',
    Buffer.from(serializeState({ ...state, blockers: grid.blockers() }), 'utf8'),
  );
  const oldBlob = current.get(stateRef(name));
  if (oldBlob !== blob) updates.push({ ref: stateRef(name), newOid: blob, oldOid: oldBlob ?? null });
  await git.updateRefs(updates, `imerge '${name}': Record state`, { packed: true });
  for (const u of updates) {
    if ('delete' in u) current.delete(u.ref);
    else current.set(u.ref, u.newOid);
  }
  for (const [k, want] of changed) {
    if (want.auto === undefined && want.manual === undefined) cells.delete(k);
    else cells.set(k, want);
  }
  index.others.clear();
  return current;
}
