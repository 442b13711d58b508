import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Git } from '../git/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { openRunJournal } from './run-persistence.js';
import { runStateFile, type RunState } from './run-state.js';
import { keepCorrupt, parseJsonText, writeFileAtomic, writeJsonFile, type ReadProblem } from './json-file.js';
import type { DoctorDeps } from './doctor-deps.js';
import { findRefProblems } from './doctor-refs.js';
import { findShareProblems } from './doctor-share.js';
import { imergePrefix } from '../imerge/state.js';
import { prunableWorktrees, worktreeFindings } from './doctor-worktrees.js';
import { RunStore, type LockStatus } from './run-store.js';
import { findInconsistencies, type Inconsistency } from './doctor-consistency.js';

export type { DoctorDeps };

// doctor lives in store/ (it owns the files) but knows the run-state schema of workflow/state,
// a leaf module with no dependencies beyond zod and the store itself.

export type FindingKind = ReadProblem | 'inconsistent' | 'journal' | 'lock' | 'refs' | 'share' | 'worktree';

/** One thing doctor found. `repairable` says whether `repairRun` can fix it on its own. */
export interface DoctorFinding {
  severity: 'error' | 'warning';
  kind: FindingKind;
  /** The file concerned. */
  file: string;
  message: string;
  repairable: boolean;
}

export type FileHealth = { status: 'ok' } | { status: ReadProblem; detail: string };

export interface ValidationReport {
  name: string;
  runDir: string;
  /** No error-severity findings. */
  ok: boolean;
  state: FileHealth;
  backup: FileHealth;
  journal: { exists: boolean; entries: number; truncatedTail: boolean; badLines: number[] };
  lock: LockStatus;
  findings: DoctorFinding[];
}

function health(path: string): { health: FileHealth; value?: RunState; text?: string } {
  if (!existsSync(path)) return { health: { status: 'missing', detail: `${path} does not exist` } };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { health: { status: 'parse', detail: (error as Error).message } };
  }
  const read = parseJsonText(text, runStateFile);
  if (!read.ok) return { health: { status: read.problem, detail: read.detail } };
  return { health: { status: 'ok' }, value: read.value, text };
}

function storeFor(runDir: string, deps: DoctorDeps): { store: RunStore; name: string } {
  return { store: new RunStore(dirname(runDir), deps), name: basename(runDir) };
}

type RunPaths = ReturnType<RunStore['paths']>;

/** state.json and its backup: missing, unparseable, against the schema, of another version. */
function fileFindings(paths: RunPaths, main: FileHealth, bak: FileHealth): DoctorFinding[] {
  const findings: DoctorFinding[] = [];
  if (main.status !== 'ok') {
    const restorable = bak.status === 'ok' && main.status !== 'version';
    findings.push({
      severity: 'error',
      kind: main.status,
      file: paths.state,
      message: `state.json: ${main.detail}${restorable ? ' (state.json.bak is valid and can be restored)' : ''}`,
      repairable: restorable,
    });
  }
  if (bak.status !== 'ok' && bak.status !== 'missing') {
    findings.push({
      severity: 'warning',
      kind: bak.status,
      file: paths.backup,
      message: `state.json.bak: ${bak.detail}`,
      repairable: false,
    });
  }
  return findings;
}

/** The state against itself and the repository, the grid's refs, and the run's worktrees. */
async function repositoryFindings(
  state: RunState | undefined,
  name: string,
  git: Git,
  paths: RunPaths,
  deps: DoctorDeps,
): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [];
  if (state !== undefined) {
    for (const inc of await findInconsistencies(state, name, git, deps.clock ?? systemClock)) {
      const { severity, message } = inc;
      findings.push({ severity, kind: 'inconsistent', file: paths.state, message, repairable: inc.fix !== undefined });
    }
    for (const p of await findRefProblems(state, name, git)) {
      const { severity, message } = p;
      const file = `${imergePrefix(name)}/`;
      findings.push({ severity, kind: 'refs', file, message, repairable: p.repair !== undefined });
    }
  }
  for (const p of await findShareProblems(name, git)) {
    const { severity, message } = p;
    findings.push({ severity, kind: 'share', file: `refs/splintercat/${name}/`, message, repairable: true });
  }
  if (deps.worktreesDir !== undefined) {
    for (const f of await worktreeFindings(git, deps.worktreesDir, state ?? null)) {
      const { severity, message, repairable } = f;
      findings.push({ severity, kind: 'worktree', file: f.path, message, repairable });
    }
  }
  return findings;
}

type JournalRead = ReturnType<ReturnType<typeof openRunJournal>['read']>;

/** A cut last line, sequence numbers going backwards, lines that are not events. */
function journalFindings(paths: RunPaths, jr: JournalRead): DoctorFinding[] {
  const findings: DoctorFinding[] = [];
  const file = paths.journal;
  if (jr.truncatedTail) {
    const message = 'the last journal line was cut short by an interrupted write';
    findings.push({ severity: 'warning', kind: 'journal', file, message, repairable: true });
  }
  const disorder = jr.entries.findIndex((e, i) => i > 0 && e.seq <= (jr.entries[i - 1]?.seq ?? 0));
  if (disorder > 0) {
    const message = `journal sequence numbers go backwards at entry ${disorder + 1} (two writers, or an edited file)`;
    findings.push({ severity: 'warning', kind: 'journal', file, message, repairable: false });
  }
  if (jr.badLines.length > 0) {
    const lines = `${jr.badLines.slice(0, 10).join(', ')}${jr.badLines.length > 10 ? ', ...' : ''}`;
    const message = `journal lines ${lines} are not valid events (ignored)`;
    findings.push({ severity: 'warning', kind: 'journal', file, message, repairable: false });
  }
  return findings;
}

function lockFindings(paths: RunPaths, lock: LockStatus): DoctorFinding[] {
  if (lock.state === 'stale') {
    const message = `the lock is held by process ${lock.info.pid} on ${lock.info.host}, which is no longer running`;
    return [{ severity: 'warning', kind: 'lock', file: paths.lock, message, repairable: true }];
  }
  if (lock.state === 'unreadable') {
    const message = `the lock file is unreadable: ${lock.detail}`;
    return [{ severity: 'error', kind: 'lock', file: paths.lock, message, repairable: true }];
  }
  return [];
}

/**
 * Check a run directory: state.json and its backup (missing / parse / schema / version),
 * consistency against the repository (`git`), the journal, and the lock. Changes nothing.
 */
export async function validateRun(runDir: string, git: Git, deps: DoctorDeps = {}): Promise<ValidationReport> {
  const clock = deps.clock ?? systemClock;
  const { store, name } = storeFor(runDir, deps);
  const paths = store.paths(name);
  const main = health(paths.state);
  const bak = health(paths.backup);
  const jr = openRunJournal(paths, clock).read();
  const lock = store.lockStatus(name);
  const findings = [
    ...fileFindings(paths, main.health, bak.health),
    ...(await repositoryFindings(main.value, name, git, paths, deps)),
    ...journalFindings(paths, jr),
    ...lockFindings(paths, lock),
  ];
  return {
    name,
    runDir,
    ok: !findings.some((f) => f.severity === 'error'),
    state: main.health,
    backup: bak.health,
    journal: {
      exists: existsSync(paths.journal),
      entries: jr.entries.length,
      truncatedTail: jr.truncatedTail,
      badLines: jr.badLines,
    },
    lock,
    findings,
  };
}

export interface RepairReport {
  name: string;
  runDir: string;
  /** The state is usable and consistent now (except findings in `remaining`). */
  ok: boolean;
  restoredFromBackup: boolean;
  /** Each change made, in order, one line each. */
  actions: string[];
  /** What is still wrong after the repair (see `validateRun`). */
  remaining: DoctorFinding[];
  /** Set when nothing usable was left: what to do next (e.g. `--rebuild`). */
  hint: string | null;
}

/** Apply each fixable inconsistency until none is left, then repair the grid's refs against the state. */
async function repairConsistency(
  initial: RunState,
  name: string,
  git: Git,
  paths: RunPaths,
  clock: Clock,
  actions: string[],
): Promise<void> {
  let state = initial;
  let changed = false;
  // Fixes can expose or settle other problems: re-check until nothing fixable is left.
  for (let round = 0; round < 100; round++) {
    const fixable = (await findInconsistencies(state, name, git, clock)).filter((i) => i.fix !== undefined);
    if (fixable.length === 0) break;
    const inc = fixable[0] as Inconsistency & { fix: NonNullable<Inconsistency['fix']> };
    const fixed = inc.fix(state);
    state = fixed.state;
    actions.push(`${inc.message}: ${fixed.action}`);
    changed = true;
  }
  if (changed) writeJsonFile(paths.state, { ...state, updatedAt: clock.now().toISOString() }, runStateFile);
  // The grid's refs, against the (repaired) state: each repair that works is listed; one that
  // fails stays among the remaining findings, with why.
  for (const p of await findRefProblems(state, name, git)) {
    if (!p.repair) continue;
    try {
      actions.push(`${p.message}: ${await p.repair()}`);
    } catch (error) {
      actions.push(
        `${p.message}: could not repair (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      );
    }
  }
}

/** Drop what a shared run kept from its remote that a pull would not use (doctor-share.ts); each repair listed. */
async function repairShare(name: string, git: Git, actions: string[]): Promise<void> {
  for (const p of await findShareProblems(name, git)) {
    try {
      actions.push(`${p.message}: ${await p.repair()}`);
    } catch (error) {
      actions.push(
        `${p.message}: could not repair (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      );
    }
  }
}

/**
 * `doctor --repair`: restore state.json from state.json.bak when the main file is missing or
 * unreadable (never over a newer version), auto-repair inconsistencies, cut a truncated journal
 * tail, remove a stale lock. Refuses while a live process holds the run. Every change is listed
 * and journalled as `state_repaired`.
 */
export async function repairRun(runDir: string, git: Git, deps: DoctorDeps = {}): Promise<RepairReport> {
  const clock = deps.clock ?? systemClock;
  const { store, name } = storeFor(runDir, deps);
  const paths = store.paths(name);
  const actions: string[] = [];
  const report = (hint: string | null, restoredFromBackup: boolean) => ({
    name,
    runDir,
    restoredFromBackup,
    actions,
    hint,
  });

  const lock = store.lockStatus(name);
  if (lock.state === 'held') {
    const before = await validateRun(runDir, git, deps);
    return {
      ...report(`process ${lock.info.pid} on ${lock.info.host} is running this merge; stop it first`, false),
      ok: false,
      remaining: before.findings,
    };
  }
  if (store.breakStaleLock(name))
    actions.push(`removed the ${lock.state} lock${lock.state === 'stale' ? ` of dead process ${lock.info.pid}` : ''}`);

  const journal = openRunJournal(paths, clock);
  if (journal.read().truncatedTail) {
    // An append cuts an unfinished last line first; the repair event below does exactly that.
    actions.push('cut the unfinished last line of events.jsonl');
  }

  let main = health(paths.state);
  let restored = false;
  if (main.health.status === 'version') {
    const after = await validateRun(runDir, git, deps);
    return {
      ...report('the state was written by another splintercat version; use that version', false),
      ok: false,
      remaining: after.findings,
    };
  }
  if (main.health.status !== 'ok') {
    const bak = health(paths.backup);
    if (bak.health.status !== 'ok' || bak.text === undefined) {
      if (actions.length > 0) journal.append({ type: 'state_repaired', how: 'auto-repair', repairs: actions });
      const after = await validateRun(runDir, git, deps);
      return {
        ...report(
          'state.json and state.json.bak are both unusable: run `splintercat doctor --rebuild` to rebuild from the journal and refs',
          false,
        ),
        ok: false,
        remaining: after.findings,
      };
    }
    const kept = keepCorrupt(paths.state, clock.now());
    if (kept !== null) actions.push(`kept the unusable state.json as ${basename(kept)}`);
    writeFileAtomic(paths.state, bak.text);
    restored = true;
    actions.push(
      `restored state.json from state.json.bak (state.json was ${main.health.status}: ${main.health.detail})`,
    );
    main = health(paths.state);
  }

  await repairConsistency(main.value as RunState, name, git, paths, clock, actions);
  await repairShare(name, git, actions);
  await pruneGoneWorktrees(git, deps, actions);
  if (actions.length > 0)
    journal.append({ type: 'state_repaired', how: restored ? 'restore-backup' : 'auto-repair', repairs: actions });
  const after = await validateRun(runDir, git, deps);
  return {
    ...report(after.ok ? null : 'some problems need the person: see remaining', restored),
    ok: after.ok,
    remaining: after.findings,
  };
}

/** Drop the registrations of the run's worktrees whose directory is gone (git's own `worktree prune`). */
async function pruneGoneWorktrees(git: Git, deps: DoctorDeps, actions: string[]): Promise<void> {
  const gone = deps.worktreesDir === undefined ? [] : await prunableWorktrees(git, deps.worktreesDir);
  if (gone.length === 0) return;
  await git.run(['worktree', 'prune']);
  actions.push(`pruned the registrations of ${gone.length} worktree(s) whose directory was gone`);
}

export { rebuildRun, type RebuildReport } from './doctor-rebuild.js';
