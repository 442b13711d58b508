import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { ConflictHunk } from '../types.js';
import { withReachablePath } from '../../util/long-path.js';
import { alignHunks, hunkContexts, type HunkContext } from './hunk-identity.js';
import { readTreeRecord, treeRecordPath, writeTreeRecord } from './tree-record.js';

/**
 * The numbers of a conflicted file's hunks, kept while some of them are settled: a hand-off
 * prints `splintercat take theirs FILE 5`, and hunk 5 must stay hunk 5 after hunk 2 was taken
 * and the file holds one hunk fewer, whatever the order of the takes. Each hunk is recorded in
 * file order with its two sides (a hunk shown without its base, in git's default style, is the
 * same hunk), the lines it was handed over at, the lines around it, and whether a take settled
 * it (hunk-identity.ts aligns the file's hunks to these); the record is tied to the file's index
 * stages, so a new merge of the path starts afresh.
 * Kept in the working tree's own git directory (`splintercat/hunk-numbers.json`).
 */
const hunkSchema = z.object({
  number: z.number().int().positive(),
  key: z.string(),
  /** The marker lines it was handed over at (first seen at, for a hunk no hand-off named). */
  start: z.number().int().positive().optional(),
  end: z.number().int().positive().optional(),
  before: z.string().optional(),
  after: z.string().optional(),
  /** Settled by `splintercat take`: no hunk of the file is this one any more. */
  taken: z.boolean().optional(),
  /** What the take kept, as `eval` names a person's choice (`ours`, `ours then theirs`, ...). */
  choice: z.string().max(40).optional(),
});
const recordSchema = z.object({
  version: z.literal(1),
  files: z.record(
    z.string(),
    z.object({
      /** `base:ours:theirs` blob ids of the path's index stages. */
      stages: z.string(),
      hunks: z.array(hunkSchema),
      /** What to run once every conflict is settled (`splintercat continue` in a run's worktree). */
      then: z.string().optional(),
    }),
  ),
});
type Record = z.infer<typeof recordSchema>;

type RecordedHunk = z.infer<typeof hunkSchema>;

export interface NumberedSides {
  number: number;
  sides: { base: string | null; ours: string; theirs: string };
  /** The marker lines the hunk is handed over at. */
  startLine?: number;
  endLine?: number;
}

/** The identity of a hunk: its two sides, line endings unified. */
export function hunkKey(sides: { ours: string; theirs: string }): string {
  const lf = (t: string): string => t.replace(/\r\n/g, '\n');
  return createHash('sha256')
    .update(`${lf(sides.ours)}\u0000${lf(sides.theirs)}`)
    .digest('hex');
}

/** The identity of a path's index stages (`base:ours:theirs` blob ids, `-` where absent). */
export function stagesId(entry: { base?: { oid: string }; ours?: { oid: string }; theirs?: { oid: string } }): string {
  return blobsId([entry.base?.oid, entry.ours?.oid, entry.theirs?.oid]);
}

/** The same id from the three sides' blob ids (null or absent: the side has no file there). */
export function blobsId(sides: ReadonlyArray<string | null | undefined>): string {
  return sides.map((s) => s ?? '-').join(':');
}

function recordPath(gitDir: string): string {
  return treeRecordPath(gitDir, 'hunk-numbers.json');
}

/** The record; missing or damaged, numbering starts again from the hunks as they are. */
async function load(gitDir: string): Promise<Record> {
  return (await readTreeRecord(recordPath(gitDir), recordSchema)) ?? { version: 1, files: {} };
}

async function save(gitDir: string, record: Record): Promise<void> {
  await writeTreeRecord(recordPath(gitDir), record);
}

/**
 * Record the numbers of the hunks a person is handed (the ladder's hunk numbers), per path, with
 * the lines they are at and around them in the file as written in `top`.
 */
export async function recordHunkNumbers(
  gitDir: string,
  files: ReadonlyArray<{ path: string; stages: string; hunks: readonly NumberedSides[] }>,
  options: { then?: string; top?: string } = {},
): Promise<void> {
  if (files.length === 0) return;
  const record = await load(gitDir);
  for (const f of files) {
    const text = options.top === undefined ? null : await fileText(join(options.top, f.path));
    const placed = f.hunks.every((h) => h.startLine !== undefined && h.endLine !== undefined);
    const contexts =
      text !== null && placed
        ? hunkContexts(
            text,
            f.hunks.map((h) => ({ startLine: h.startLine ?? 0, endLine: h.endLine ?? 0 })),
          )
        : [];
    record.files[f.path] = {
      stages: f.stages,
      hunks: f.hunks.map((h, i) => ({
        number: h.number,
        key: hunkKey(h.sides),
        ...(h.startLine !== undefined && h.endLine !== undefined ? { start: h.startLine, end: h.endLine } : {}),
        ...(contexts[i] ?? {}),
      })),
      ...(options.then ? { then: options.then } : {}),
    };
  }
  await save(gitDir, record);
}

/** A file's bytes as latin1 text (one character per byte, as `hunkContexts` reads it); null when unreadable. */
async function fileText(full: string): Promise<string | null> {
  try {
    return await withReachablePath(full, (p) => readFile(p, 'latin1'));
  } catch {
    return null;
  }
}

/** The hunks of a file now, by their number, and what the record says of the others. */
export interface HunkNumbers {
  /** The number of each hunk, by its index in the file as parsed now. */
  numbers: Map<number, number>;
  /** The lines each hunk was handed over at, by number. */
  handed: Map<number, { startLine: number; endLine: number }>;
  /** The numbers a take settled. */
  taken: number[];
  then: string | undefined;
}

/**
 * The number of each hunk of the file as it is now (`text`: its bytes as latin1): aligned in
 * order to the hunks recorded (hunk-identity.ts); a hunk no record knows (first seen, or
 * edited inside its markers) gets the next number after those recorded. Records what it assigned.
 */
export async function numberHunks(
  gitDir: string,
  path: string,
  stages: string,
  parsed: readonly ConflictHunk[],
  text: string,
): Promise<HunkNumbers> {
  const record = await load(gitDir);
  const known = record.files[path]?.stages === stages ? record.files[path] : undefined;
  const recorded = known?.hunks ?? [];
  const contexts = hunkContexts(text, parsed);
  const current = parsed.map((b, i) => ({ key: hunkKey(b), ...(contexts[i] as HunkContext) }));
  const numbers = new Map<number, number>();
  const hunks: RecordedHunk[] = [];
  let next = Math.max(0, ...recorded.map((h) => h.number)) + 1;
  for (const step of alignHunks(recorded, current)) {
    if (step.kind === 'gone') {
      hunks.push(recorded[step.recorded] as RecordedHunk);
      continue;
    }
    const now = parsed[step.current] as ConflictHunk;
    const was = step.kind === 'match' ? (recorded[step.recorded] as RecordedHunk) : undefined;
    const hunk: RecordedHunk = was ?? {
      number: next++,
      key: current[step.current]?.key ?? '',
      start: now.startLine,
      end: now.endLine,
    };
    // The lines around a hunk are learnt once, where it was first seen: never from a later state of the file.
    const {
      taken: _open,
      choice: _kept,
      ...open
    } = hunk.before === undefined ? { ...hunk, ...contexts[step.current] } : hunk;
    hunks.push(open);
    numbers.set(now.index, hunk.number);
  }
  record.files[path] = { stages, hunks, ...(known?.then ? { then: known.then } : {}) };
  await save(gitDir, record);
  const handed = new Map(
    hunks.flatMap((h) =>
      h.start !== undefined && h.end !== undefined ? [[h.number, { startLine: h.start, endLine: h.end }] as const] : [],
    ),
  );
  return { numbers, handed, taken: hunks.filter((h) => h.taken === true).map((h) => h.number), then: known?.then };
}

/** Mark hunks of a path settled by a take, with what it kept: none of the file's hunks is one of them any more. */
export async function markTaken(gitDir: string, path: string, taken: readonly number[], choice: string): Promise<void> {
  const record = await load(gitDir);
  const file = record.files[path];
  if (!file) return;
  const set = new Set(taken);
  file.hunks = file.hunks.map((h) => (set.has(h.number) ? { ...h, taken: true, choice } : h));
  await save(gitDir, record);
}

/** What the record says to run once every conflict of the working tree is settled, when it says. */
export async function recordedThen(gitDir: string): Promise<string | undefined> {
  return Object.values((await load(gitDir)).files).find((f) => f.then !== undefined)?.then;
}

/**
 * The hunks of a path a take settled, in file order, each by its identity (`hunkKey` of its sides)
 * with what the take kept: the truth of the choice wherever the file around the hunk changed since.
 */
export async function takenChoices(gitDir: string, path: string): Promise<Array<{ key: string; choice: string }>> {
  const file = (await load(gitDir)).files[path];
  return (file?.hunks ?? []).flatMap((h) => (h.taken === true && h.choice ? [{ key: h.key, choice: h.choice }] : []));
}
