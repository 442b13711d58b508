import * as z from 'zod';
import { readTreeRecord, treeRecordPath, writeTreeRecord } from './tree-record.js';

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

const recordPath = (gitDir: string): string => treeRecordPath(gitDir, 'whole-takes.json');

/** The whole-file takes recorded in a working tree's git directory; empty when none (or unreadable). */
export async function readWholeTakes(gitDir: string): Promise<Record['files']> {
  // Missing or damaged: no take is remembered, and the run asks again where it must.
  return (await readTreeRecord(recordPath(gitDir), recordSchema))?.files ?? {};
}

/** Record that a person took one side of a path's whole file (replacing an earlier take of it). */
export async function recordWholeTake(
  gitDir: string,
  path: string,
  stages: string,
  choice: 'ours' | 'theirs',
): Promise<void> {
  const record: Record = { version: 1, files: { ...(await readWholeTakes(gitDir)), [path]: { stages, choice } } };
  await writeTreeRecord(recordPath(gitDir), record);
}
