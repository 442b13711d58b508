import { existsSync, lstatSync } from 'node:fs';
import { withReachablePath } from '../../util/long-path.js';

/** Whether the worktree holds `full`, however deep (a path from upstream past PATH_MAX included). */
const exists = (full: string): boolean => withReachablePath(full, existsSync);
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import type { PathChange } from '../../git/worktree-snapshot.js';
import type { Cell } from '../../imerge/cell.js';
import { hasMarkers, isGitlink, listUnmerged, type UnmergedEntry } from '../../resolve/index.js';
import { diskEntryBytes, diskEntryId } from '../../resolve/parse/disk-entry.js';
import { printableName, shellWord } from '../../util/safe-print.js';
import { invalidGeneratedFiles } from '../generated-warnings.js';
import type { WorkflowContext } from '../ports.js';
import { keepOrDelete } from './file.js';
import { changesSinceHandoff } from './snapshot.js';

/**
 * What `collectPersonResolution` found: the tree to record (with the person's own edits outside the
 * conflict's files since the hand-off, when one was recorded), or why the person's edit is not taken yet.
 */
type PersonCollection =
  { ok: true; tree: string; outside?: PathChange[] } | { ok: false; left: string[]; why: string[] };

/**
 * After a person worked in the conflict's worktree: take what the hand-off told them to do —
 * edited files (staged or not), a modify/delete settled by `git rm` or `git add`, a committed
 * fix — and refuse only a file with conflict markers left (`conflict-marker-size` aware), a
 * path still unmerged and untouched, or (`refuse`) the very tree a failed check blamed.
 */
export async function collectPersonResolution(
  ctx: WorkflowContext,
  cell: Cell,
  options: { refuse?: { tree: string; why: string } } = {},
): Promise<PersonCollection> {
  const id = ctx.worktrees.conflictId(cell);
  const wt = await ctx.worktrees.worktreeGit(id);
  try {
    const unmerged = await listUnmerged(wt);
    const changed = new Set((await wt.lines(['diff', '--name-only', 'HEAD'])).filter((f) => exists(join(wt.cwd, f))));
    for (const e of unmerged) if (exists(join(wt.cwd, e.path))) changed.add(e.path);
    const paths = [...changed];
    const left: string[] = [];
    const why: string[] = [];
    if (paths.length > 0) {
      // `conflict-marker-size` per path (`path: conflict-marker-size: N`, or `unspecified`).
      const attrs = await wt.lines(['check-attr', 'conflict-marker-size', '--', ...paths]);
      const sizes = new Map(
        attrs
          .map((line) => /^(.*): conflict-marker-size: (\d+)$/.exec(line))
          .flatMap((m) => (m ? [[m[1], Number(m[2])] as const] : [])),
      );
      for (const f of paths) {
        // A directory (a submodule, unpopulated) holds no markers; a link is read as its target's name.
        const bytes = diskEntryBytes(join(wt.cwd, f));
        if (bytes === null || !hasMarkers(bytes.toString('latin1'), sizes.get(f))) continue;
        left.push(f);
        why.push(`${printableName(f)} still has conflict markers: remove every marker line`);
      }
    }
    for (const e of unmerged) {
      if (left.includes(e.path)) continue;
      const unsettled = await stillUnmerged(wt, e);
      if (unsettled === null) continue;
      left.push(e.path);
      why.push(unsettled);
    }
    // A generated file is taken whole: one left with a package pinned twice or not parsing is not taken.
    for (const bad of await invalidGeneratedFiles(
      wt,
      unmerged.map((e) => e.path).filter((p) => !left.includes(p)),
    )) {
      left.push(bad.path);
      why.push(bad.why);
    }
    if (left.length > 0) return { ok: false, left, why };
    const outside = await changesSinceHandoff(wt);
    const tree = await ctx.worktrees.writeTree(id);
    if (options.refuse && tree === options.refuse.tree) {
      const files = (await wt.lines(['diff', '--name-only', 'HEAD'])).slice(0, 20);
      return { ok: false, left: files, why: [options.refuse.why] };
    }
    return { ok: true, tree, ...(outside !== null ? { outside } : {}) };
  } finally {
    wt.close();
  }
}

/**
 * Why an unmerged path the person did not settle is still unmerged, or null when they did (or
 * deleted it from disk, which `add -A` stages). Untouched: the file still holds what git left (the
 * surviving side of a modify/delete, our side of a binary file or of a link). A text conflict was
 * left with markers: a file without them equal to our side is the person's choice of that side.
 */
async function stillUnmerged(wt: Git, e: UnmergedEntry): Promise<string | null> {
  const kind = !e.ours || !e.theirs ? 'modify/delete' : 'both';
  const full = join(wt.cwd, e.path);
  const st = withReachablePath(full, (p) => lstatSync(p, { throwIfNoEntry: false }));
  if (st === undefined) return null;
  // A submodule still unmerged in the index was not settled: its directory is no file to compare.
  if (st.isDirectory()) return isGitlink(e) ? submoduleLeft(e) : null;
  // Hashed as git stores it: a link by its own target's name, never the file it points to.
  const onDisk = await diskEntryId(wt, e.path);
  const presented = kind === 'modify/delete' ? (e.ours ?? e.theirs)?.oid : e.ours?.oid;
  if (presented === undefined || onDisk !== presented) return null;
  // git leaves a link's conflict as our link, with no markers to remove: left as it is, it is untouched.
  if (kind !== 'modify/delete' && !st.isSymbolicLink() && !(await isBinaryBlob(wt, presented))) return null;
  const c = keepOrDelete(e.path);
  return kind === 'modify/delete'
    ? `${printableName(e.path)} is still unmerged: run \`${c.delete}\` to keep the deletion or \`${c.keep}\` to keep the file`
    : `${printableName(e.path)} is still unmerged and unchanged: take one side (\`splintercat take ours ${shellWord(e.path)}\`, or theirs), or edit it`;
}

/** How to settle a submodule still unmerged: each side's commit kept with `take`, or the deletion. */
function submoduleLeft(e: UnmergedEntry): string {
  const q = shellWord(e.path);
  const sides = (['ours', 'theirs'] as const).filter((side) => e[side] !== undefined);
  const keep = sides.map(
    (side) =>
      `\`splintercat take ${side} ${q}\` to keep the ${side === 'ours' ? "fork side's" : "upstream side's"} commit`,
  );
  const del = sides.length < 2 ? [`\`git rm -q -- ${q}\` to keep the deletion`] : [];
  return `${printableName(e.path)} is a submodule still unmerged: run ${[...del, ...keep].join(' or ')}`;
}

/** git's own test: a blob with a NUL byte in its first 8,000 bytes is binary (git leaves it unmarked at a conflict). */
async function isBinaryBlob(git: Git, oid: string): Promise<boolean> {
  const blob = await git.readObject(oid);
  return blob !== null && blob.content.subarray(0, 8000).includes(0);
}
