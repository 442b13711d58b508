import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import type { ConflictHunk } from '../types.js';

/**
 * The numbers of a conflicted file's blocks, kept while some of them are settled: a hand-off
 * prints `splintercat take theirs FILE 5`, and hunk 5 must stay hunk 5 after hunk 2 was taken
 * and the file holds one block fewer. Each number is tied to the block's two sides (a block
 * shown without its base, in git's default style, is the same block), and the record to the
 * file's index stages, so a new merge of the path starts afresh.
 * Kept in the working tree's own git directory (`splintercat/hunk-numbers.json`).
 */
const recordSchema = z.object({
  version: z.literal(1),
  files: z.record(
    z.string(),
    z.object({
      /** `base:ours:theirs` blob ids of the path's index stages. */
      stages: z.string(),
      hunks: z.array(z.object({ number: z.number().int().positive(), key: z.string() })),
      /** What to run once every conflict is settled (`splintercat continue` in a run's worktree). */
      then: z.string().optional(),
    }),
  ),
});
type Record = z.infer<typeof recordSchema>;

export interface NumberedSides {
  number: number;
  sides: { base: string | null; ours: string; theirs: string };
}

/** The identity of a block: its two sides, line endings unified. */
export function blockKey(sides: { ours: string; theirs: string }): string {
  const lf = (t: string): string => t.replace(/\r\n/g, '\n');
  return createHash('sha256')
    .update(`${lf(sides.ours)}\u0000${lf(sides.theirs)}`)
    .digest('hex');
}

/** The identity of a path's index stages (`base:ours:theirs` blob ids, `-` where absent). */
export function stagesId(entry: { base?: { oid: string }; ours?: { oid: string }; theirs?: { oid: string } }): string {
  return [entry.base, entry.ours, entry.theirs].map((s) => s?.oid ?? '-').join(':');
}

function recordPath(gitDir: string): string {
  return join(gitDir, 'splintercat', 'hunk-numbers.json');
}

async function load(gitDir: string): Promise<Record> {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(await readFile(recordPath(gitDir), 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // Missing or damaged: numbering starts again from the blocks as they are.
  }
  return { version: 1, files: {} };
}

async function save(gitDir: string, record: Record): Promise<void> {
  const path = recordPath(gitDir);
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temp, `${JSON.stringify(record, null, 2)}\n`);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Record the numbers of the blocks a person is handed (the ladder's hunk numbers), per path. */
export async function recordHunkNumbers(
  gitDir: string,
  files: ReadonlyArray<{ path: string; stages: string; hunks: readonly NumberedSides[] }>,
  then?: string,
): Promise<void> {
  if (files.length === 0) return;
  const record = await load(gitDir);
  for (const f of files)
    record.files[f.path] = {
      stages: f.stages,
      hunks: f.hunks.map((h) => ({ number: h.number, key: blockKey(h.sides) })),
      ...(then ? { then } : {}),
    };
  await save(gitDir, record);
}

/**
 * The number of each block of the file as it is now (by its index in the file): the recorded
 * number of a block with the same sides; a block no record knows (first seen, or edited inside
 * its markers) gets the next number after those recorded. Records what it assigned.
 */
export async function numberBlocks(
  gitDir: string,
  path: string,
  stages: string,
  blocks: readonly ConflictHunk[],
): Promise<{ numbers: Map<number, number>; then: string | undefined }> {
  const record = await load(gitDir);
  const known = record.files[path]?.stages === stages ? record.files[path] : undefined;
  const hunks = [...(known?.hunks ?? [])];
  const used = new Set<number>();
  const numbers = new Map<number, number>();
  let next = Math.max(0, ...hunks.map((h) => h.number)) + 1;
  for (const block of blocks) {
    const key = blockKey(block);
    const found = hunks.find((h) => h.key === key && !used.has(h.number));
    const number = found?.number ?? next++;
    if (!found) hunks.push({ number, key });
    used.add(number);
    numbers.set(block.index, number);
  }
  record.files[path] = { stages, hunks, ...(known?.then ? { then: known.then } : {}) };
  await save(gitDir, record);
  return { numbers, then: known?.then };
}
