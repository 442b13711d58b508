import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mergeStages, rememberFile } from '../../resolve/cache/file-memory.js';
import type { ConflictState, HandoffConflict, RunState } from '../../store/run-state.js';
import { withReachablePath } from '../../util/long-path.js';
import type { Ctx } from '../nodes/common.js';

/**
 * Remember the person's whole result for each file they were handed (its text as they left it, or
 * its deletion), under the file's three sides at this cell: the same merge of that file, met again
 * in this clone or in one that imported the cache, gets the same file, their edits outside the
 * conflict hunks included. A file that is not a regular UTF-8 file is left to the per-hunk memory.
 * Returns the number of files remembered.
 */
export async function rememberPersonsFiles(
  ctx: Ctx,
  state: RunState,
  c: ConflictState,
  worktree: string,
  entry: HandoffConflict,
  parents: { above: string; left: string },
): Promise<number> {
  const cache = ctx.ladder.cache;
  if (!cache) return 0;
  const paths = entry.files.map((f) => f.path);
  const stages = await mergeStages(ctx.git, parents.above, parents.left, paths);
  if (stages === null) return 0;
  let remembered = 0;
  for (const path of paths) {
    const sides = stages.get(path);
    if (sides === undefined) continue;
    const text = personsText(join(worktree, path));
    if (text === undefined) continue;
    const key = await rememberFile(cache, { path, stages: sides, text, provenance: { merge: state.name, cell: c.id } });
    if (key !== null) remembered++;
  }
  if (remembered > 0)
    ctx.log.decision(
      { cell: c.id },
      `[cache] remembered the person's whole result for ${remembered} file(s) of ${c.id}, for the same three sides met again`,
    );
  return remembered;
}

/** The file as the person left it: its text, null when they deleted it, undefined when it is not a UTF-8 regular file. */
function personsText(full: string): string | null | undefined {
  return withReachablePath(full, (path) => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined) return null;
    if (!st.isFile()) return undefined;
    const bytes = readFileSync(path);
    const text = bytes.toString('utf8');
    return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
  });
}
