import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type * as z from 'zod';

/**
 * The small records `take` keeps for a working tree (hunk numbers, whole-file takes, a model's
 * candidates) live in that tree's own git directory, under `splintercat/`: they go with the
 * worktree and are never part of a commit.
 */
export function treeRecordPath(gitDir: string, name: string): string {
  return join(gitDir, 'splintercat', name);
}

/** The record at `path` as `schema` reads it; null when it is missing or damaged (the caller starts afresh). */
export async function readTreeRecord<T>(path: string, schema: z.ZodType<T>): Promise<T | null> {
  try {
    const parsed = schema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // Missing or not JSON: as damaged.
  }
  return null;
}

/** Write the record whole (through a temporary file and a rename), so a reader never sees half of it. */
export async function writeTreeRecord(
  path: string,
  record: unknown,
  options: { pretty?: boolean } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temp, `${JSON.stringify(record, null, options.pretty === false ? undefined : 2)}\n`);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
