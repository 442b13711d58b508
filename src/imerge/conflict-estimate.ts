import type { Git } from '../git/index.js';
import { conflictPaths, mergeTree } from './merge-tree.js';

/**
 * How many conflicts a merge will meet, before the grid shows them: the paths a plain merge of
 * the two tips leaves conflicted, grouped by the commits of each side that touch them (paths
 * changed by the same fork commits and the same upstream commits conflict in the same cell, as
 * a real conflict's source and test do). Each group is one expected conflict: at least one
 * blocked cell must touch it, since the tips' conflict is made of the cells' changes.
 */
export interface TipConflicts {
  /** The tips' conflicted paths, one group per expected conflict. */
  groups: string[][];
}

/** The commits of `base..tip` (first parents) that touch each path, as one key per path. */
async function touchingCommits(
  git: Git,
  base: string,
  tip: string,
  firstParent: boolean,
): Promise<Map<string, string>> {
  const out = await git.text([
    'log',
    ...(firstParent ? ['--first-parent'] : []),
    '--no-renames',
    '--name-only',
    '--format=%x00%h',
    `${base}..${tip}`,
  ]);
  const byPath = new Map<string, string[]>();
  let commit = '';
  for (const line of out.split('\n')) {
    if (line.startsWith('\0')) commit = line.slice(1);
    else if (line !== '') byPath.set(line, [...(byPath.get(line) ?? []), commit]);
  }
  return new Map([...byPath].map(([path, commits]) => [path, commits.sort().join(',')]));
}

/** Merge the tips in memory (`git merge-tree --name-only`) and group their conflicted paths into expected conflicts. */
export async function tipConflicts(git: Git, tip1: string, tip2: string, firstParent = true): Promise<TipConflicts> {
  const merged = await git.run(['merge-tree', '--write-tree', '--name-only', '--no-messages', tip1, tip2], {
    okExitCodes: [0, 1],
  });
  const paths = merged.stdout.split('\n').slice(1).filter(Boolean);
  if (paths.length === 0) return { groups: [] };
  const base = (await git.text(['merge-base', tip1, tip2])).split('\n')[0] as string;
  const [fork, upstream] = await Promise.all([
    touchingCommits(git, base, tip1, firstParent),
    touchingCommits(git, base, tip2, firstParent),
  ]);
  const groups = new Map<string, string[]>();
  for (const path of [...new Set(paths)]) {
    const key = `${fork.get(path) ?? '?'} ${upstream.get(path) ?? '?'}`;
    groups.set(key, [...(groups.get(key) ?? []), path]);
  }
  return { groups: [...groups.values()] };
}

/**
 * The expected number of conflicts once some are known (resolved or blocking, with their files):
 * the known ones, plus each group of the tips' conflicted paths none of them touched. Never less
 * than the tips' count, since those groups stand for conflicts still to come.
 */
export function expectedConflicts(groups: readonly string[][], known: ReadonlyArray<readonly string[]>): number {
  const seen = new Set(known.flat());
  const untouched = groups.filter((g) => !g.some((p) => seen.has(p))).length;
  return Math.max(groups.length, known.length + untouched);
}

/** What a plain merge of the two tips leaves conflicted: a lower bound of the work, before the grid is explored. */
export interface ConflictEstimate {
  /** Paths the plain merge leaves conflicted. */
  files: number;
  /** Conflict blocks in them; a path conflicted as a whole (modify/delete, binary, a directory in the way) counts one. */
  hunks: number;
}

const MARKER = /^<{7} /gm;

/**
 * Merge the two tips once, in memory (`git merge-tree`), and count what conflicts. The incremental merge meets
 * at least these conflicts (each is in some cell of the grid) and often more (cells on the way conflict where
 * the tips do not), so this is a lower bound: what the planner can know before any cell is merged.
 */
export async function estimateConflicts(
  git: Git,
  ours: string,
  theirs: string,
  signal?: AbortSignal,
): Promise<ConflictEstimate> {
  const result = await mergeTree(git, ours, theirs, signal);
  if (result.clean) return { files: 0, hunks: 0 };
  const paths = conflictPaths(result);
  let hunks = 0;
  for (const p of paths) {
    const text = p.kind === 'modify/delete' ? null : await git.readBlobText(`${result.tree}:${p.path}`);
    hunks += Math.max(1, text?.match(MARKER)?.length ?? 0);
  }
  return { files: paths.length, hunks };
}
