import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import { decideFileConflict } from '../file-level.js';
import { generatedFile, type GeneratedFile } from '../data/generated-files.js';
import { decodeBytes, encodeText, encodingOf } from '../parse/encoding.js';
import { parseConflictText } from '../parse/markers.js';
import { mergeFileTexts } from '../parse/merge-file.js';
import { listUnmerged, readStageBytes, type UnmergedEntry } from '../parse/stages.js';
import type { ConflictedFile } from '../types.js';
import { gitMadeBlocks } from './git-blocks.js';
import { numberBlocks, stagesId } from './hunk-numbers.js';
import { type TakeChoice, type TakeOrder } from './take-command.js';
import { withReachablePath } from '../../util/long-path.js';
import { printableName, shellWord } from '../../util/safe-print.js';
import { replaceBlocks, takeText, type SideTexts } from './take-text.js';

export interface TakeRequest {
  choice: TakeChoice;
  order?: TakeOrder;
  /** Relative to the top level; absent = every unmerged path. */
  path?: string;
  /** One block, by its number (with `path`); absent = every block of the file. */
  hunk?: number;
}

/** A block still in a file, by its number, where it is now. */
interface OpenBlock {
  number: number;
  startLine: number;
  endLine: number;
}

/** What is left of one unmerged path after the take. */
interface LeftFile {
  path: string;
  /** content, add/add, modify/delete, binary, ... */
  kind: string;
  blocks: OpenBlock[];
  /** For a path without blocks: what settles it. */
  commands?: string[];
}

export interface TakeOutcome {
  taken: Array<{ path: string; hunks: number[]; staged: boolean }>;
  /** Paths the choice does not apply to, why, and what settles them instead. */
  refused: Array<{ path: string; why: string; fix: string[] }>;
  left: LeftFile[];
  /** What to run once nothing is left (`splintercat continue` in a run's worktree, `git commit` after `git merge`). */
  then: string;
}

interface Loaded {
  entry: UnmergedEntry;
  kind: string;
  /** A lockfile or generated file: decided whole, never block by block. */
  generated: GeneratedFile | null;
  sides: SideTexts;
  encoding: ReturnType<typeof encodingOf>;
  file: ConflictedFile | null;
  stages: string;
}

/**
 * `splintercat take`: write one side, both, or the base in place of a file's conflict blocks
 * (all of them, or the one numbered `hunk`), every other byte as it was (encoding, line endings,
 * final line break), and stage the file once no block is left. Refuses what the choice does
 * not apply to (no conflict, a modify/delete, a binary file, a block without a base) with what
 * settles it instead. Works in any conflicted working tree: a run's conflict worktree or the
 * tree `git merge` left.
 */
export async function takeInWorkingTree(git: Git, top: string, request: TakeRequest): Promise<TakeOutcome> {
  const gitDir = await git.gitDir(false);
  const entries = await listUnmerged(git, request.path === undefined ? [] : [request.path]);
  const outcome: TakeOutcome = { taken: [], refused: [], left: [], then: '' };
  let then: string | undefined;
  if (request.path !== undefined && entries.length === 0)
    outcome.refused.push(noConflict(request.path, existsSync(join(top, request.path))));
  for (const entry of entries) {
    const loaded = await load(git, top, entry);
    const refusal = refuse(loaded);
    if (refusal) {
      outcome.refused.push(refusal);
      continue;
    }
    const file = loaded.file as ConflictedFile;
    const { numbers, then: recorded } = await numberBlocks(gitDir, entry.path, loaded.stages, file.hunks);
    then ??= recorded;
    const all = [...numbers.values()];
    if (request.hunk !== undefined && !all.includes(request.hunk)) {
      outcome.refused.push({
        path: entry.path,
        why: `${printableName(entry.path)} has no conflict block numbered ${request.hunk} (its blocks now: ${all.join(', ')}); it may be taken already`,
        fix: [`splintercat take ${request.choice} ${shellWord(entry.path)} ${all[0]}`],
      });
      continue;
    }
    const chosen = new Set(request.hunk === undefined ? all : [request.hunk]);
    const noBase = request.choice === 'base' ? baseMissing(loaded, numbers, chosen) : null;
    if (noBase) {
      outcome.refused.push(noBase);
      continue;
    }
    const text = replaceBlocks(file, numbers, chosen, request.choice, request.order ?? 'ours-first', loaded.sides);
    await withReachablePath(join(top, entry.path), (p) => writeFile(p, encodeText(text, loaded.encoding)));
    const rest = gitMadeBlocks(
      parseConflictText(text, { path: entry.path, markerSize: file.markerSize }),
      loaded.sides,
    );
    if (rest.hunks.length === 0) await git.run(['add', '--', entry.path]);
    outcome.taken.push({ path: entry.path, hunks: [...chosen], staged: rest.hunks.length === 0 });
  }
  outcome.left = await leftToDo(git, top, gitDir);
  outcome.then = then ?? (await plainNext(gitDir));
  return outcome;
}

async function load(git: Git, top: string, entry: UnmergedEntry): Promise<Loaded> {
  const bytes = await readStageBytes(git, entry);
  const full = join(top, entry.path);
  const disk = withReachablePath(full, existsSync) ? await withReachablePath(full, (p) => readFile(p)) : null;
  const encoding = encodingOf(disk, bytes.base, bytes.ours, bytes.theirs);
  const text = (b: Buffer | null): string | null => (b === null ? null : decodeBytes(b, encoding));
  const sides = { base: text(bytes.base), ours: text(bytes.ours), theirs: text(bytes.theirs) };
  const binary = [bytes.base, bytes.ours, bytes.theirs].some((b) => b !== null && b.subarray(0, 8000).includes(0));
  const side = (s: UnmergedEntry['ours'], t: string | null) => (s ? { mode: s.mode, oid: s.oid, text: t } : undefined);
  const kind = binary
    ? 'binary'
    : decideFileConflict({
        path: entry.path,
        base: side(entry.base, sides.base),
        ours: side(entry.ours, sides.ours),
        theirs: side(entry.theirs, sides.theirs),
      }).kind;
  const stages = stagesId(entry);
  let file: ConflictedFile | null = null;
  if (disk !== null && (kind === 'content' || kind === 'add/add'))
    file = await withBases(
      git,
      gitMadeBlocks(parseConflictText(decodeBytes(disk, encoding), { path: entry.path }), sides),
      sides,
      encoding,
    );
  const generated = generatedFile(entry.path, [sides.ours, sides.theirs, sides.base]);
  return { entry, kind, generated, sides, encoding, file, stages };
}

/**
 * Blocks written in git's default style have no base section: each gets the base of the
 * block with the same two sides in a diff3 re-merge of the index stages, so `take base` works
 * there too. Blocks a person edited inside keep no base.
 */
async function withBases(
  git: Git,
  file: ConflictedFile,
  sides: SideTexts,
  encoding: ReturnType<typeof encodingOf>,
): Promise<ConflictedFile> {
  if (file.hunks.every((h) => h.base !== null) || sides.base === null || sides.ours === null || sides.theirs === null)
    return file;
  const merged = await mergeFileTexts(git, {
    base: sides.base ?? '',
    ours: sides.ours,
    theirs: sides.theirs,
    markerSize: file.markerSize,
    encoding,
  });
  const full = parseConflictText(merged.text, { path: file.path, markerSize: file.markerSize }).hunks;
  for (const h of file.hunks) {
    if (h.base !== null) continue;
    h.base = full.find((f) => f.ours === h.ours && f.theirs === h.theirs)?.base ?? null;
  }
  return file;
}

/** Why the choice does not apply to this path (and what settles it), or null when it does. */
function refuse(loaded: Loaded): TakeOutcome['refused'][number] | null {
  const { path } = loaded.entry;
  const q = shellWord(path);
  if (loaded.kind === 'binary')
    return {
      path,
      why: `${printableName(path)} is a binary file: there are no conflict blocks to take from`,
      fix: [`git checkout --ours -- ${q} && git add -- ${q}`, `git checkout --theirs -- ${q} && git add -- ${q}`],
    };
  if (loaded.kind !== 'content' && loaded.kind !== 'add/add')
    return {
      path,
      why: `${printableName(path)} is a ${loaded.kind} conflict (one side has no file): there are no conflict blocks to take from`,
      fix: [`git rm -q -- ${q}   # keep the deletion`, `git add -- ${q}   # keep the file as it is`],
    };
  if (loaded.generated !== null) {
    const then = loaded.generated.command ? `, then ${loaded.generated.command} && git add -- ${q}` : '';
    return {
      path,
      why: `${printableName(path)} is generated by ${loaded.generated.tool}: it is decided whole, never block by block`,
      fix: [
        `git checkout --ours -- ${q} && git add -- ${q}${then}`,
        `git checkout --theirs -- ${q} && git add -- ${q}${then}`,
      ],
    };
  }
  if (loaded.file === null)
    return { path, why: `${printableName(path)} is missing from the working tree`, fix: [`git checkout -m -- ${q}`] };
  if (loaded.file.hunks.length === 0)
    return {
      path,
      why: `${printableName(path)} has no conflict block left (it is still unmerged in the index)`,
      fix: [`git add -- ${q}   # once the file reads as it should`],
    };
  return null;
}

/** `take base` of blocks that have no base (an add/add, a block edited inside its markers). */
function baseMissing(loaded: Loaded, numbers: ReadonlyMap<number, number>, chosen: ReadonlySet<number>) {
  const { path } = loaded.entry;
  const missing = (loaded.file?.hunks ?? []).filter(
    (h) => chosen.has(numbers.get(h.index) ?? h.index) && takeText(h, 'base') === null,
  );
  if (missing.length === 0) return null;
  const q = shellWord(path);
  return {
    path,
    why: `${printableName(path)}: ${loaded.sides.base === null ? 'both sides added the file, so there is no base' : `block ${missing.map((h) => numbers.get(h.index)).join(', ')} has no base to take`}`,
    fix: [`splintercat take ours ${q}`, `splintercat take theirs ${q}`],
  };
}

function noConflict(path: string, exists: boolean): TakeOutcome['refused'][number] {
  return exists
    ? {
        path,
        why: `${printableName(path)} has no conflict: git lists it as merged, so there is nothing to take`,
        fix: ['git status'],
      }
    : {
        path,
        why: `${printableName(path)}: no such file in the working tree`,
        fix: ['git status   # the conflicted paths'],
      };
}

/** Every unmerged path with its blocks (numbered as `take` numbers them) or what settles it. */
async function leftToDo(git: Git, top: string, gitDir: string): Promise<LeftFile[]> {
  const out: LeftFile[] = [];
  for (const entry of await listUnmerged(git)) {
    const loaded = await load(git, top, entry);
    const q = shellWord(entry.path);
    if (loaded.file === null || loaded.file.hunks.length === 0 || loaded.generated !== null) {
      const commands =
        loaded.generated !== null
          ? (refuse(loaded)?.fix ?? [])
          : loaded.kind === 'content' || loaded.kind === 'add/add' || loaded.kind === 'binary'
            ? [`git add -- ${q}`]
            : [`git rm -q -- ${q}`, `git add -- ${q}`];
      out.push({ path: entry.path, kind: loaded.kind, blocks: [], commands });
      continue;
    }
    const { numbers } = await numberBlocks(gitDir, entry.path, loaded.stages, loaded.file.hunks);
    out.push({
      path: entry.path,
      kind: loaded.kind,
      blocks: loaded.file.hunks.map((h) => ({
        number: numbers.get(h.index) ?? h.index,
        startLine: h.startLine,
        endLine: h.endLine,
      })),
    });
  }
  return out;
}

/** After `git merge`, `git commit`; after a cherry-pick or rebase stop, its `--continue`. */
async function plainNext(gitDir: string): Promise<string> {
  if (existsSync(join(gitDir, 'CHERRY_PICK_HEAD'))) return 'git cherry-pick --continue';
  if (existsSync(join(gitDir, 'REVERT_HEAD'))) return 'git revert --continue';
  if (existsSync(join(gitDir, 'rebase-merge')) || existsSync(join(gitDir, 'rebase-apply')))
    return 'git rebase --continue';
  return 'git commit';
}
