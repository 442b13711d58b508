import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';

/**
 * The files a person took whole with `splintercat take ours|theirs FILE` (no hunk named), kept in
 * the working tree's own git directory (`splintercat/whole-takes.json`): a run reads them when it
 * takes the person's work, and decides the path the same way for the rest of the merge. Tied to
 * the path's index stages, so an edit made after a new merge of the path is not read as a take.
 */
const recordSchema = z.object({
  version: z.literal(1),
  files: z.record(z.string(), z.object({ stages: z.string(), choice: z.enum(['ours', 'theirs']) })),
});
type Record = z.infer<typeof recordSchema>;

const recordPath = (gitDir: string): string => join(gitDir, 'splintercat', 'whole-takes.json');

/** The whole-file takes recorded in a working tree's git directory; empty when none (or unreadable). */
export async function readWholeTakes(gitDir: string): Promise<Record['files']> {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(await readFile(recordPath(gitDir), 'utf8')));
    if (parsed.success) return parsed.data.files;
  } catch {
    // Missing or damaged: no take is remembered, and the run asks again where it must.
  }
  return {};
}

/** Record that a person took one side of a path's whole file (replacing an earlier take of it). */
export async function recordWholeTake(
  gitDir: string,
  path: string,
  stages: string,
  choice: 'ours' | 'theirs',
): Promise<void> {
  const record: Record = { version: 1, files: { ...(await readWholeTakes(gitDir)), [path]: { stages, choice } } };
  const file = recordPath(gitDir);
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temp, `${JSON.stringify(record, null, 2)}\n`);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
