import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import {
  changesSince,
  restoreSnapshot,
  takeSnapshot,
  type PathChange,
  type WorktreeSnapshot,
} from '../../git/worktree-snapshot.js';

/**
 * Who changed what outside a conflict's files in its worktree. Two snapshots (git/worktree-snapshot.ts)
 * of the files outside the conflict's, kept in the worktree's git directory (a per-worktree ref keeps
 * their trees) so they live and die with it:
 * - `presented`: right after the merge is presented (or a resolution put back to amend);
 * - `handoff`: when the conflict is handed to a person, after everything that changed since
 *   `presented` (a rung, a model's check) was put back. What differs from it at `continue` is the
 *   person's, and only that: nothing else writes a worktree handed to a person.
 */
interface Snapshots {
  presented?: WorktreeSnapshot;
  /** With the `presented` tree it was taken against: a new presentation makes it void. */
  handoff?: WorktreeSnapshot & { presented: string };
}

const FILE = 'splintercat-snapshots.json';
const REF = 'refs/worktree/splintercat';

function gitDirOf(wt: Git): string {
  if (wt.boundGitDir === undefined) throw new Error(`no git directory recorded for the worktree ${wt.cwd}`);
  return wt.boundGitDir;
}

function read(wt: Git): Snapshots {
  const path = join(gitDirOf(wt), FILE);
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Snapshots;
  } catch {
    return {};
  }
}

async function write(wt: Git, snapshots: Snapshots, previous: Snapshots): Promise<void> {
  for (const kind of ['presented', 'handoff'] as const) {
    const tree = snapshots[kind]?.tree;
    if (tree === previous[kind]?.tree) continue;
    if (tree) await wt.run(['update-ref', `${REF}/${kind}`, tree]);
    else await wt.run(['update-ref', '-d', `${REF}/${kind}`], { okExitCodes: [0, 1] });
  }
  writeFileSync(join(gitDirOf(wt), FILE), `${JSON.stringify(snapshots)}\n`);
}

/** A merge (or a resolution to amend) was just presented in `wt`: what is there outside `files` is splintercat's. */
export async function recordPresented(wt: Git, files: readonly string[]): Promise<void> {
  await write(wt, { presented: await takeSnapshot(wt, files) }, read(wt));
}

/**
 * The conflict in `wt` goes to a person. The first time for this presentation: whatever changed
 * outside its files since it was presented is put back (it is nobody's: a person has not been
 * asked yet), then the hand-off snapshot is taken. Handed again (their edit was not taken yet):
 * kept, so their earlier edits stay theirs. Returns what was put back.
 */
export async function recordHandoff(wt: Git): Promise<PathChange[]> {
  const snapshots = read(wt);
  const presented = snapshots.presented;
  if (presented === undefined) return [];
  if (snapshots.handoff?.presented === presented.tree) return [];
  const putBack = await restoreSnapshot(wt, presented);
  const handoff = await takeSnapshot(wt, presented.excluded);
  await write(wt, { presented, handoff: { ...handoff, presented: presented.tree } }, snapshots);
  return putBack;
}

/** What the person changed outside the conflict's files since it was handed to them; null when no hand-off was recorded. */
export async function changesSinceHandoff(wt: Git): Promise<PathChange[] | null> {
  const handoff = read(wt).handoff;
  return handoff === undefined ? null : changesSince(wt, handoff);
}
