import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import { decideFileConflict } from '../file-level.js';
import { generatedFile, type GeneratedFile } from '../data/generated-files.js';
import { decodeBytes, encodingOf } from '../parse/encoding.js';
import { parseConflictText } from '../parse/markers.js';
import { mergeFileTexts } from '../parse/merge-file.js';
import { diskEntryBytes } from '../parse/disk-entry.js';
import { readStageBytes, type UnmergedEntry } from '../parse/stages.js';
import type { ConflictedFile, ConflictHunk } from '../types.js';
import { gitMadeHunks } from './git-hunks.js';
import { stagesId } from './hunk-numbers.js';
import { takeText, type SideTexts } from './take-text.js';

/** One unmerged path as `take` sees it: its kind, its index stages as text, its hunks (as git made them). */
export interface Loaded {
  entry: UnmergedEntry;
  kind: string;
  /** A lockfile or generated file: decided whole, never hunk by hunk. */
  generated: GeneratedFile | null;
  sides: SideTexts;
  encoding: ReturnType<typeof encodingOf>;
  file: ConflictedFile | null;
  stages: string;
  /** The file on disk, one character per byte (what the hunk numbers' context is read from). */
  latin1: string;
}

/** Read one unmerged path: its stages, the file on disk, its kind and its hunks. */
export async function loadConflict(git: Git, top: string, entry: UnmergedEntry): Promise<Loaded> {
  const bytes = await readStageBytes(git, entry);
  const full = join(top, entry.path);
  const disk = diskEntryBytes(full);
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
      gitMadeHunks(parseConflictText(decodeBytes(disk, encoding), { path: entry.path }), sides),
      sides,
      encoding,
    );
  const generated = generatedFile(entry.path, [sides.ours, sides.theirs, sides.base]);
  return { entry, kind, generated, sides, encoding, file, stages, latin1: disk?.toString('latin1') ?? '' };
}

/**
 * Hunks written in git's default style have no base section: each gets the base of the
 * hunk with the same two sides in a diff3 re-merge of the index stages, so `take base` works
 * there too. Hunks a person edited inside keep no base.
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

/** A kind of conflict with no hunks to take one by one: the file is decided whole (or a generated file). */
export function decidedWhole(loaded: Loaded): boolean {
  return (loaded.kind !== 'content' && loaded.kind !== 'add/add') || loaded.generated !== null;
}

/**
 * Whether a hunk has a base to take: never when the path has no base (both sides added it, and git's
 * empty base section is no version of the file), nor for a hunk edited inside its markers.
 */
export function hasBase(loaded: Loaded, hunk: ConflictHunk): boolean {
  return loaded.sides.base !== null && takeText(hunk, 'base') !== null;
}

/** The choices that exist for a hunk, as the alternatives of one command: `ours|theirs|both`, `|base` where there is one. */
export function choicesFor(loaded: Loaded, hunk: ConflictHunk | null): string {
  return `ours|theirs|both${hunk !== null && hasBase(loaded, hunk) ? '|base' : ''}`;
}
