import type { Git } from '../git/index.js';
import { conflictPaths, mergeTree, type MergeTreeResult } from './merge-tree.js';

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
  /** Conflict hunks in them; a path conflicted as a whole (modify/delete, binary, a directory in the way) counts one. */
  hunks: number;
}

const MARKER = /^<{7} /gm;

/** What one in-memory merge of the two tips tells the planner before the grid is explored. */
export interface TipMerge {
  /**
   * How many conflicts the merge will meet: the paths the tips' merge leaves conflicted, grouped by the
   * commits of each side that touch them (paths changed by the same fork commits and the same upstream
   * commits conflict in the same cell, as a real conflict's source and test do). Each group is one expected
   * conflict: at least one blocked cell must touch it, since the tips' conflict is made of the cells' changes.
   */
  groups: string[][];
  /** What that merge leaves conflicted; null when its blobs could not be read. */
  lowerBound: ConflictEstimate | null;
}

/**
 * Merge the two tips once, in memory (`git merge-tree`), and derive from that one merge both the expected
 * conflicts (`groups`) and the lower bound of the work (`lowerBound`). The incremental merge meets at least
 * these conflicts (each is in some cell of the grid) and often more (cells on the way conflict where the tips
 * do not).
 */
export async function tipMerge(
  git: Git,
  tip1: string,
  tip2: string,
  options: { firstParent?: boolean; signal?: AbortSignal } = {},
): Promise<TipMerge> {
  const result = await mergeTree(git, tip1, tip2, options.signal);
  if (result.clean) return { groups: [], lowerBound: { files: 0, hunks: 0 } };
  const [groups, lowerBound] = await Promise.all([
    groupConflicts(git, tip1, tip2, [...new Set(result.stages.map((s) => s.entry.path))], options.firstParent ?? true),
    countConflicts(git, result).catch(() => null),
  ]);
  return { groups, lowerBound };
}

/** Group the tips' conflicted paths (those left with index stages) by the commits of each side that touch them. */
async function groupConflicts(
  git: Git,
  tip1: string,
  tip2: string,
  paths: string[],
  firstParent: boolean,
): Promise<string[][]> {
  if (paths.length === 0) return [];
  const base = (await git.text(['merge-base', tip1, tip2])).split('\n')[0] as string;
  const [fork, upstream] = await Promise.all([
    touchingCommits(git, base, tip1, firstParent),
    touchingCommits(git, base, tip2, firstParent),
  ]);
  const groups = new Map<string, string[]>();
  for (const path of paths) {
    const key = `${fork.get(path) ?? '?'} ${upstream.get(path) ?? '?'}`;
    groups.set(key, [...(groups.get(key) ?? []), path]);
  }
  return [...groups.values()];
}

/** Conflicted files and their conflict hunks; a path conflicted as a whole (modify/delete, binary, ...) counts one. */
async function countConflicts(git: Git, result: Extract<MergeTreeResult, { clean: false }>): Promise<ConflictEstimate> {
  const paths = conflictPaths(result);
  let hunks = 0;
  for (const p of paths) {
    const text = p.kind === 'modify/delete' ? null : await git.readBlobText(`${result.tree}:${p.path}`);
    hunks += Math.max(1, text?.match(MARKER)?.length ?? 0);
  }
  return { files: paths.length, hunks };
}
