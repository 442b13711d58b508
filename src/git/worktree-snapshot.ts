import { copyFileSync, lstatSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { Git } from './git.js';
import { withTempIndex } from './temp-index.js';

/**
 * What a work tree held at one moment outside a few paths (a conflict's files): the tree of its
 * files, tracked and untracked but not ignored, as `git add -A` would stage them, written through
 * a temporary index (the work tree's own index is never touched), and the paths left out.
 */
export interface WorktreeSnapshot {
  tree: string;
  /** Paths (relative, `/`-separated) the snapshot does not speak for. */
  excluded: string[];
  /** Untracked paths git cannot add (a nested repository without a commit), there at the time. */
  unaddable?: string[];
}

/** One path outside the excluded ones that differs from a snapshot. */
export interface PathChange {
  path: string;
  /** added: not in the snapshot; deleted: gone from the work tree; modified: content, mode or type. */
  change: 'added' | 'deleted' | 'modified';
}

/**
 * The tree `git add -A` makes of the work tree now, through a copy of its index (fast: unchanged
 * files are not hashed), and the untracked paths it could not add.
 */
async function currentTree(git: Git): Promise<{ tree: string; unaddable: string[] }> {
  const real =
    git.boundGitDir !== undefined
      ? join(git.boundGitDir, 'index')
      : await git.text(['rev-parse', '--path-format=absolute', '--git-path', 'index']);
  return withTempIndex(async (env) => {
    try {
      copyFileSync(real, env.GIT_INDEX_FILE as string);
    } catch {
      // no index yet: git add -A starts from nothing
    }
    const added = await git.run(['add', '-A', '--ignore-errors', '--', '.'], { env, okExitCodes: [0, 1] });
    const unaddable =
      added.exitCode === 0
        ? []
        : (await git.text(['ls-files', '-z', '--others', '--exclude-standard', '--directory'], { env }))
            .split('\0')
            .filter(Boolean)
            .map((p) => p.replace(/\/$/, ''));
    // What add could not settle (a conflicted submodule) stays unmerged: out of the snapshot's tree.
    const unmerged = await git.text(['ls-files', '-z', '--unmerged'], { env });
    const paths = [
      ...new Set(
        unmerged
          .split('\0')
          .filter(Boolean)
          .map((e) => e.slice(e.indexOf('\t') + 1)),
      ),
    ];
    if (paths.length > 0)
      await git.run(['update-index', '-z', '--force-remove', '--stdin'], { env, input: `${paths.join('\0')}\0` });
    return { tree: await git.text(['write-tree'], { env }), unaddable: [...unaddable, ...paths] };
  });
}

/** Take a snapshot of `git`'s work tree outside `excluded`. */
export async function takeSnapshot(git: Git, excluded: readonly string[]): Promise<WorktreeSnapshot> {
  const now = await currentTree(git);
  return { tree: now.tree, excluded: [...excluded], ...(now.unaddable.length > 0 ? { unaddable: now.unaddable } : {}) };
}

/** The paths outside the snapshot's excluded ones that differ now from it. */
export async function changesSince(git: Git, snapshot: WorktreeSnapshot): Promise<PathChange[]> {
  const now = await currentTree(git);
  const changes: PathChange[] = now.unaddable
    .filter((path) => !isExcluded(path, snapshot.excluded) && !(snapshot.unaddable ?? []).includes(path))
    .map((path) => ({ path, change: 'added' as const }));
  if (now.tree === snapshot.tree) return changes;
  const out = await git.run(['diff-tree', '-r', '-z', '--no-renames', '--name-status', snapshot.tree, now.tree]);
  const fields = out.stdout.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i] as string;
    const path = fields[i + 1] as string;
    if (isExcluded(path, snapshot.excluded)) continue;
    changes.push({ path, change: status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified' });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Put the work tree back as the snapshot has it outside the excluded paths: files added since
 * are removed, changed or deleted ones written again by git from the snapshot (`checkout-index`
 * through a temporary index, which never writes through a link). Repeated while something is
 * still different (a restored `.gitignore` can reveal a file it hid). Returns what was put back.
 */
export async function restoreSnapshot(git: Git, snapshot: WorktreeSnapshot): Promise<PathChange[]> {
  const restored: PathChange[] = [];
  for (let round = 0; round < 3; round++) {
    const changes = await changesSince(git, snapshot);
    if (changes.length === 0) break;
    for (const c of changes) if (c.change === 'added') removeWithin(git.cwd, c.path);
    const rewrite = changes.filter((c) => c.change !== 'added').map((c) => c.path);
    if (rewrite.length > 0) await checkoutFrom(git, snapshot.tree, rewrite);
    for (const c of changes) if (!restored.some((r) => r.path === c.path)) restored.push(c);
  }
  return restored;
}

async function checkoutFrom(git: Git, tree: string, paths: string[]): Promise<void> {
  await withTempIndex(async (env) => {
    await git.run(['read-tree', tree], { env });
    await git.run(['checkout-index', '-f', '-z', '--stdin'], { env, input: `${paths.join('\0')}\0` });
  });
}

/** Remove `rel` under `root`, never through a link in its parent directories. */
function removeWithin(root: string, rel: string): void {
  const abs = join(root, rel);
  let parent: string;
  try {
    parent = realpathSync(dirname(abs));
  } catch {
    return;
  }
  const top = realpathSync(root);
  if (parent !== top && !parent.startsWith(top + sep)) return;
  if (lstatSync(abs, { throwIfNoEntry: false }) === undefined) return;
  rmSync(join(parent, rel.split('/').pop() as string), { recursive: true, force: true });
}

function isExcluded(path: string, excluded: readonly string[]): boolean {
  return excluded.some((e) => path === e || path.startsWith(`${e}/`));
}
