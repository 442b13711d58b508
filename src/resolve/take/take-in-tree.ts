import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import { encodeText } from '../parse/encoding.js';
import { parseConflictText } from '../parse/markers.js';
import { listUnmerged } from '../parse/stages.js';
import type { ConflictedFile } from '../types.js';
import { gitMadeHunks } from './git-hunks.js';
import { markTaken, numberHunks, recordedThen } from './hunk-numbers.js';
import { choicesFor, decidedWhole, loadConflict, type Loaded } from './loaded-conflict.js';
import { choiceOfTake, type TakeChoice, type TakeOrder } from './take-command.js';
import { baseMissing, noConflict, refuse, type Refusal } from './take-refusals.js';
import { replaceHunks } from './take-text.js';
import { takeWholeFile } from './take-whole-file.js';
import { recordWholeTake } from './whole-takes.js';
import { withReachablePath } from '../../util/long-path.js';
import { printableName, shellWord } from '../../util/safe-print.js';

export interface TakeRequest {
  choice: TakeChoice;
  order?: TakeOrder;
  /** Relative to the top level; absent = every unmerged path. */
  path?: string;
  /** One hunk, by its number (with `path`); absent = every hunk of the file. */
  hunk?: number;
}

/** A hunk still in a file, by its number, where it is now, where it was handed over, and whether it has a base. */
interface OpenHunk {
  number: number;
  startLine: number;
  endLine: number;
  /** The lines it was handed over at, when they were others. */
  handed?: { startLine: number; endLine: number };
  /** The choices that exist for it (`ours|theirs|both`, `|base` where it has one). */
  choices: string;
}

/** What is left of one unmerged path after the take. */
export interface LeftFile {
  path: string;
  /** content, add/add, modify/delete, binary, ... */
  kind: string;
  hunks: OpenHunk[];
  /** For a path without hunks: what settles it. */
  commands?: string[];
}

export interface TakeOutcome {
  /** `whole`: a file decided whole, what was done with it (kept a side's file, deleted it). */
  /** `remembered`: the file was taken whole with that side, which a run keeps for the rest of its merge. */
  taken: Array<{ path: string; hunks: number[]; staged: boolean; whole?: string; remembered?: 'ours' | 'theirs' }>;
  /** Paths the choice does not apply to, why, and what settles them instead. */
  refused: Refusal[];
  left: LeftFile[];
  /** What to run once nothing is left (`splintercat continue` in a run's worktree, `git commit` after `git merge`). */
  then: string;
}

/**
 * `splintercat take`: write one side, both, or the base in place of a file's conflict hunks
 * (all of them, or the one numbered `hunk`), every other byte as it was (encoding, line endings,
 * final line break), and stage the file once no hunk is left. Refuses what the choice does
 * not apply to (no conflict, a modify/delete, a binary file, a hunk without a base) with what
 * settles it instead. Works in any conflicted working tree: a run's conflict worktree or the
 * tree `git merge` left. A generated file takes ours or theirs whole, named or not; a file named
 * without a hunk and taken ours or theirs is recorded as taken whole (whole-takes.ts), which a run
 * keeps for every later conflict on it in the merge.
 */
export async function takeInWorkingTree(git: Git, top: string, request: TakeRequest): Promise<TakeOutcome> {
  const gitDir = await git.gitDir(false);
  const entries = await listUnmerged(git, request.path === undefined ? [] : [request.path]);
  const outcome: TakeOutcome = { taken: [], refused: [], left: [], then: '' };
  let then: string | undefined;
  if (request.path !== undefined && entries.length === 0)
    outcome.refused.push(noConflict(request.path, existsSync(join(top, request.path))));
  for (const entry of entries) {
    const loaded = await loadConflict(git, top, entry);
    const side = request.choice === 'ours' || request.choice === 'theirs' ? request.choice : null;
    // A file named without a hunk, of a kind decided whole (or any generated file): the side's whole file (or its deletion).
    const whole =
      request.hunk === undefined && (request.path !== undefined || (side !== null && loaded.generated !== null));
    if (whole && decidedWhole(loaded)) {
      const taken = await takeWholeFile(git, loaded, request.choice);
      if ('why' in taken) outcome.refused.push(taken);
      else {
        if (side !== null) await recordWholeTake(gitDir, entry.path, loaded.stages, side);
        outcome.taken.push(side === null ? taken : { ...taken, remembered: side });
      }
      continue;
    }
    const refusal = refuse(loaded);
    if (refusal) {
      outcome.refused.push(refusal);
      continue;
    }
    const recorded = await takeHunks(git, gitDir, top, loaded, request, outcome);
    if (whole && side !== null && outcome.taken.at(-1)?.path === entry.path) {
      await recordWholeTake(gitDir, entry.path, loaded.stages, side);
      outcome.taken[outcome.taken.length - 1] = {
        ...(outcome.taken.at(-1) as TakeOutcome['taken'][number]),
        remembered: side,
      };
    }
    then ??= recorded;
  }
  then ??= await recordedThen(gitDir);
  outcome.left = await leftToDo(git, top, gitDir);
  outcome.then = then ?? (await plainNext(gitDir));
  return outcome;
}

/**
 * The chosen hunks of one text file (all, or the one numbered `request.hunk`) written, the file
 * staged once no hunk is left, the hunks taken recorded. Returns what the record says to run then.
 */
async function takeHunks(
  git: Git,
  gitDir: string,
  top: string,
  loaded: Loaded,
  request: TakeRequest,
  outcome: TakeOutcome,
): Promise<string | undefined> {
  const { entry } = loaded;
  const file = loaded.file as ConflictedFile;
  const { numbers, taken, then } = await numberHunks(gitDir, entry.path, loaded.stages, file.hunks, loaded.latin1);
  const all = [...numbers.values()];
  if (request.hunk !== undefined && !all.includes(request.hunk)) {
    const q = shellWord(entry.path);
    const now = `its hunks now: ${all.join(', ')}`;
    outcome.refused.push({
      path: entry.path,
      why: taken.includes(request.hunk)
        ? `hunk ${request.hunk} of ${printableName(entry.path)} is settled already: it was taken (${now})`
        : `${printableName(entry.path)} has no conflict hunk numbered ${request.hunk} (${now})`,
      fix: [`splintercat take ${choicesFor(loaded, file.hunks[0] ?? null)} ${q} ${all[0]}`],
    });
    return then;
  }
  const chosen = new Set(request.hunk === undefined ? all : [request.hunk]);
  const noBase = request.choice === 'base' ? baseMissing(loaded, numbers, chosen) : null;
  if (noBase) {
    outcome.refused.push(noBase);
    return then;
  }
  const text = replaceHunks(file, numbers, chosen, request.choice, request.order ?? 'ours-first', loaded.sides);
  await withReachablePath(join(top, entry.path), (p) => writeFile(p, encodeText(text, loaded.encoding)));
  await markTaken(gitDir, entry.path, [...chosen], choiceOfTake(request.choice, request.order));
  const rest = gitMadeHunks(parseConflictText(text, { path: entry.path, markerSize: file.markerSize }), loaded.sides);
  if (rest.hunks.length === 0) await git.run(['add', '--', entry.path]);
  outcome.taken.push({ path: entry.path, hunks: [...chosen], staged: rest.hunks.length === 0 });
  return then;
}

/**
 * Every unmerged path of a working tree with its hunks, numbered as `take` numbers them (the
 * numbers they were handed over with, whatever was taken since), or what settles it.
 */
export async function leftToDo(git: Git, top: string, gitDir: string): Promise<LeftFile[]> {
  const out: LeftFile[] = [];
  for (const entry of await listUnmerged(git)) {
    const loaded = await loadConflict(git, top, entry);
    const q = shellWord(entry.path);
    if (loaded.file === null || loaded.file.hunks.length === 0 || decidedWhole(loaded)) {
      const commands = !decidedWhole(loaded)
        ? [`git add -- ${q}   # once the file reads as it should`]
        : loaded.generated !== null
          ? (refuse(loaded)?.fix ?? [])
          : [
              ...(entry.ours && entry.theirs ? [] : [`git rm -q -- ${q}`, `git add -- ${q}`]),
              `splintercat take ours|theirs ${q}`,
            ];
      out.push({ path: entry.path, kind: loaded.kind, hunks: [], commands });
      continue;
    }
    const { numbers, handed } = await numberHunks(gitDir, entry.path, loaded.stages, loaded.file.hunks, loaded.latin1);
    out.push({
      path: entry.path,
      kind: loaded.kind,
      hunks: loaded.file.hunks.map((h) => {
        const number = numbers.get(h.index) ?? h.index;
        const was = handed.get(number);
        const moved = was !== undefined && (was.startLine !== h.startLine || was.endLine !== h.endLine);
        return {
          number,
          startLine: h.startLine,
          endLine: h.endLine,
          ...(moved ? { handed: was } : {}),
          choices: choicesFor(loaded, h),
        };
      }),
    });
  }
  return out;
}

/** After `git merge`, `git commit`; after a cherry-pick or rebase stop, its `--continue`. */
export async function plainNext(gitDir: string): Promise<string> {
  if (existsSync(join(gitDir, 'CHERRY_PICK_HEAD'))) return 'git cherry-pick --continue';
  if (existsSync(join(gitDir, 'REVERT_HEAD'))) return 'git revert --continue';
  if (existsSync(join(gitDir, 'rebase-merge')) || existsSync(join(gitDir, 'rebase-apply')))
    return 'git rebase --continue';
  return 'git commit';
}
