import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareCells } from '../../imerge/cell.js';
import { learnPersonHunks, parseConflictText, personChoice } from '../../resolve/index.js';
import type { ConflictState, HandoffConflict, RunState } from '../../store/run-state.js';
import { recordResolved } from '../conflict-records.js';
import type { Ctx } from '../nodes/common.js';
import { personChoicesOf, withRecordedChoices } from '../../store/flow-choices.js';
import { personsOutsideEdits } from '../outside-edits.js';
import type { GridEngine } from '../ports.js';
import { shownDrops } from '../drops/shown-drops.js';
import { collectPersonResolution } from './collect.js';
import { presentedFile } from './presented.js';
import { rememberPersonsFiles } from './remember-files.js';
import { diskEntryBytes } from '../../resolve/parse/disk-entry.js';
import { printableName } from '../../util/safe-print.js';
import { personIdentity } from '../person-identity.js';
import { wholeFileChoice, type WholeFileChoice } from './whole-file.js';
import { decidedOnceAt, sideWords } from './decided-once.js';
import { presentedTakes, type PresentedTakes } from './take-records.js';

/** A conflict waiting for the person with no hand-off record (handed over before one was kept): its files as it knows them. */
function unrecordedEntry(c: ConflictState, worktree: string): HandoffConflict {
  return {
    conflict: c.id,
    worktree,
    files: c.files.map((f) => ({
      path: f.path,
      kind: f.kind,
      instructions: `edit ${f.path}: remove every marker line`,
    })),
    failure: null,
    model: [],
    refused: [],
  };
}

/**
 * Take a person's work on the conflicts handed to them: record each accepted tree in the grid,
 * learn their hunk answers into the cache (with the run, cell and file), remember their
 * keep-or-delete choices for later cells of the run. Conflicts whose worktree is not ready
 * (markers left, a path untouched, the blamed tree unchanged) are returned to hand off again, saying why.
 */
export async function takePersonsWork(
  state: RunState,
  ctx: Ctx,
  engine: GridEngine,
  waiting: ConflictState[],
): Promise<{ state: RunState; resolved: string[]; again: HandoffConflict[] }> {
  let next = state;
  const resolved: string[] = [];
  const again: HandoffConflict[] = [];
  const handed = state.handoff?.conflicts ?? [];
  const choices = personChoicesOf(state);
  const fileChoices = { ...choices.fileChoices };
  const wholeFiles = { ...choices.wholeFiles };
  const suspectChanged = await anySuspectChanged(ctx, waiting, handed);
  let first = true;
  for (const c of [...waiting].sort((a, b) => compareCells(a.cell, b.cell))) {
    // A resolution recorded before this one may open the way to it: fill what merges cleanly first.
    if (!first) await engine.autofill({ signal: ctx.signal });
    first = false;
    const worktree = ctx.worktrees.path(ctx.worktrees.conflictId(c.cell));
    const entry = handed.find((h) => h.conflict === c.id) ?? unrecordedEntry(c, worktree);
    const refuse =
      entry.blamedTree && !suspectChanged
        ? {
            tree: entry.blamedTree,
            why: `the worktree still holds the resolution check '${entry.failure?.check ?? '?'}' failed on: amend it (or commit a fix there), then run splintercat continue`,
          }
        : undefined;
    const collected = await collectPersonResolution(ctx, c.cell, refuse ? { refuse } : {});
    if (!collected.ok) {
      again.push({ ...entry, refused: collected.why });
      continue;
    }
    // Still recorded (presented after an abort): the fix takes its place, and what was built on it is merged again.
    if ((await engine.cellCommit(c.cell)) !== null) await engine.forget([c.cell]);
    const parents = await engine.conflictCell(c.cell).catch(() => null);
    if (parents === null) {
      again.push({
        ...entry,
        refused: [
          `its parent cells are not merged yet (a conflict before it is still open): it is taken once they are`,
        ],
      });
      continue;
    }
    const outsideEdits = await personsOutsideEdits(ctx, c, collected.outside);
    const commit = await engine.recordMerge(c.cell, collected.tree);
    const takes = await takesOf(ctx, state, c, entry);
    const answered = answeredFiles(ctx, state, c, worktree, entry);
    const learnt = await learn(ctx, state, c, answered, takes);
    await rememberPersonsFiles(ctx, state, c, worktree, entry, parents);
    const chosen = personChoices(answered, takes);
    const settled = await settledBy(ctx, engine, c, collected.tree);
    for (const [path, decided] of Object.entries(await decidedOnceAt(ctx, c, worktree, parents, settled.whole))) {
      wholeFiles[path] = decided;
      ctx.log.decision(
        { cell: c.id },
        `[merge] ${printableName(path)} decided once for this merge: at ${c.id} your file is the whole file of ${sideWords(c.cell, decided.side)}; later conflicts on it in this merge take the same side`,
      );
    }
    const files = await shownDrops(
      ctx,
      { above: parents.above, left: parents.left, tree: collected.tree },
      personsFiles(c, learnt, chosen, entry.failure !== null, settled),
    );
    next = recordResolved(next, ctx, c.cell, collected.tree, commit, files, { outsideEdits });
    // What the recorded tree holds, not what the disk shows: a link whose target is gone, or a
    // submodule's empty directory, says nothing of whether the path was kept.
    for (const choice of choices.handoffChoices[c.id] ?? []) {
      const kept = await ctx.git.query(['ls-tree', '-z', '--name-only', collected.tree, '--', choice.path]);
      fileChoices[choice.key] = kept.stdout !== '' ? 'keep' : 'delete';
    }
    resolved.push(c.id);
  }
  const handoffChoices = Object.fromEntries(
    Object.entries(choices.handoffChoices).filter(([id]) => !resolved.includes(id)),
  );
  next = withRecordedChoices(next, ctx.journal, { fileChoices, handoffChoices, wholeFiles });
  if (again.length === 0 && next.handoff !== null) next = { ...next, handoff: null };
  return { state: next, resolved, again };
}

/**
 * Several resolutions presented together to amend (the suspects of a check that failed on them all):
 * the person fixes the one at fault and may leave the others as they are. Only when none changed is
 * each refused, since the check would fail the same way again.
 */
async function anySuspectChanged(ctx: Ctx, waiting: ConflictState[], handed: HandoffConflict[]): Promise<boolean> {
  const suspects = handed.filter((h) => h.blamedTree && waiting.some((c) => c.id === h.conflict));
  if (suspects.length < 2) return false;
  for (const h of suspects) {
    const c = waiting.find((w) => w.id === h.conflict) as ConflictState;
    const now = await collectPersonResolution(ctx, c.cell);
    if (now.ok && now.tree !== h.blamedTree) return true;
  }
  return false;
}

/**
 * The conflict's files once the person settled them: an amended resolution (`whole`) is the person's throughout;
 * otherwise what no rung resolved is theirs, with the cache keys their answers were learnt under.
 */
function personsFiles(
  c: ConflictState,
  learnt: Map<string, Array<string | null>>,
  chosen: Map<string, string[]>,
  whole: boolean,
  settled: Settled,
): ConflictState['files'] {
  return c.files.map((f) => {
    const keys = [...(learnt.get(f.path) ?? [])];
    const choices = whole ? [] : [...(chosen.get(f.path) ?? [])];
    const person = settled.person ? { person: settled.person } : {};
    const byPerson = whole || f.hunks.some((h) => h.status !== 'resolved') || (f.hunks.length === 0 && !f.decidedBy);
    const open = whole ? f.hunks.length : f.hunks.filter((h) => h.status !== 'resolved').length;
    const found = byPerson ? settled.whole.get(f.path) : undefined;
    // A file equal to one side is that side's whole file (however it was taken); one hunk chosen so is said as a hunk.
    const hunkwise = found !== 'deleted' && open === 1 && choices[0] === found;
    const side = hunkwise ? undefined : found;
    return {
      ...f,
      ...(byPerson ? person : {}),
      ...(side ? { whole: side } : {}),
      hunks: f.hunks.map((h) =>
        h.status === 'resolved' && !whole
          ? h
          : {
              ...h,
              status: 'resolved' as const,
              rung: 'person' as const,
              by: 'person',
              cacheKey: keys.shift() ?? null,
              ...withChoice(choices.shift()),
              ...person,
            },
      ),
      // A file-level choice (keep or delete, ...) that no rule made was the person's.
      decidedBy: f.hunks.length === 0 && (whole || !f.decidedBy) ? ('person' as const) : (f.decidedBy ?? null),
    };
  });
}

/** Who settled the conflict's files by hand (this clone's person), and the files they chose as a whole. */
interface Settled {
  person: string | null;
  whole: Map<string, WholeFileChoice>;
}

async function settledBy(ctx: Ctx, engine: GridEngine, c: ConflictState, tree: string): Promise<Settled> {
  const [ours, theirs] = await Promise.all([
    engine.cellCommit({ i1: c.cell.i1, i2: c.cell.i2 - 1 }),
    engine.cellCommit({ i1: c.cell.i1 - 1, i2: c.cell.i2 }),
  ]);
  const whole = new Map<string, WholeFileChoice>();
  for (const f of c.files) {
    const choice = await wholeFileChoice(ctx.git, tree, f.path, { ours, theirs }).catch(() => null);
    if (choice) whole.set(f.path, choice);
  }
  return { person: await personIdentity(ctx.git).catch(() => null), whole };
}

/** A file as it was presented to the person and as they left it (both as git stores them). */
interface AnsweredFile {
  path: string;
  presented: Buffer;
  mine: Buffer;
}

/** The conflict's files the person was presented and left something at, each read once. */
function answeredFiles(
  ctx: Ctx,
  state: RunState,
  c: ConflictState,
  worktree: string,
  entry: HandoffConflict,
): AnsweredFile[] {
  return entry.files.flatMap((f) => {
    const saved = presentedFile(ctx, state, c.id, f.path);
    if (!existsSync(saved)) return [];
    // As git stores it: a link the person left is its target's name, never read through.
    const mine = diskEntryBytes(join(worktree, f.path));
    return mine === null ? [] : [{ path: f.path, presented: readFileSync(saved), mine }];
  });
}

/** Cache each hunk a person answered (file as presented vs. their file); by path, one key per presented hunk (null: not learnt). */
async function learn(
  ctx: Ctx,
  state: RunState,
  c: ConflictState,
  answered: readonly AnsweredFile[],
  takes: ReadonlyMap<string, PresentedTakes>,
): Promise<Map<string, Array<string | null>>> {
  const out = new Map<string, Array<string | null>>();
  const cache = ctx.ladder.cache;
  if (!cache) return out;
  for (const f of answered) {
    const keys = await learnPersonHunks(cache, {
      path: f.path,
      presented: f.presented.toString('utf8'),
      resolved: f.mine.toString('utf8'),
      provenance: { merge: state.name, cell: c.id },
      ...(takes.has(f.path) ? { unlocated: takes.get(f.path)?.text } : {}),
    });
    const learnt = keys.filter((k) => k !== null).length;
    if (keys.length > 0)
      ctx.log.decision(
        { cell: c.id },
        `[cache] learnt ${learnt} of ${keys.length} hunk(s) of ${f.path} from the person's resolution of ${c.id}` +
          (learnt < keys.length
            ? ` (${keys.length - learnt} not located in their file: its context changed, so it is asked again if met)`
            : ''),
      );
    out.set(f.path, keys);
  }
  return out;
}

/** What the person kept for each hunk they were handed (ours, theirs, both, base, other text), by path, in hunk order. */
function personChoices(
  answered: readonly AnsweredFile[],
  takes: ReadonlyMap<string, PresentedTakes>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of answered) {
    const presented = parseConflictText(f.presented.toString('latin1'), { path: f.path });
    const resolved = f.mine.toString('latin1');
    const taken = takes.get(f.path)?.choices ?? [];
    // A hunk not located by the lines around it keeps what its take kept (recorded at the take).
    out.set(
      f.path,
      presented.hunks.map((h, i) => {
        const choice = personChoice(presented, h, resolved);
        return choice === 'unaligned' ? (taken[i] ?? choice) : choice;
      }),
    );
  }
  return out;
}

/** What `splintercat take` kept for each presented hunk of the conflict's files, by path (its worktree's record). */
async function takesOf(
  ctx: Ctx,
  state: RunState,
  c: ConflictState,
  entry: HandoffConflict,
): Promise<Map<string, PresentedTakes>> {
  const out = new Map<string, PresentedTakes>();
  const wt = await ctx.worktrees.gitOf(ctx.worktrees.conflictId(c.cell));
  if (wt === null) return out;
  const gitDir = await wt.gitDir(false);
  for (const f of entry.files) {
    const saved = presentedFile(ctx, state, c.id, f.path);
    if (existsSync(saved)) out.set(f.path, await presentedTakes(gitDir, f.path, readFileSync(saved, 'utf8')));
  }
  return out;
}

function withChoice(choice: string | undefined): { choice?: string } {
  return choice === undefined || choice === 'unaligned' ? {} : { choice };
}
