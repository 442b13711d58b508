import { SplintercatError, UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import { GOALS } from '../config/goals.js';
import type { Grid } from './grid.js';
import { cellId } from './cell.js';

/**
 * What `simplify` writes for each goal, as git-imerge 1.2.0 writes it. Every goal but `full`
 * makes new commits from the trees of grid cells; none of them touches the working tree.
 */

/** A goal's result: the commit for the branch, and the commit the branch's old value must precede. */
export interface GoalResult {
  commit: string;
  /**
   * The fast-forward check's target: the new commit itself, except for `rebase`, where git-imerge
   * checks the grid's last cell (the rebased chain is allowed to drop the grid's merges).
   */
  apex: string;
}

/** The parts of a merge a goal reads. */
export interface GoalInput {
  git: Git;
  name: string;
  grid: Grid;
  goal: string;
  tip1: string;
  tip2: string;
  /** The merge commit's message (goal merge); default git-imerge's `Merge TIP2 into TIP1 (using imerge)`. */
  message?: string;
}

/** Write the goal's commits (no ref is changed). Throws when a cell the goal needs is not filled. */
export async function simplifyToGoal(input: GoalInput): Promise<GoalResult> {
  switch (input.goal) {
    case 'merge':
      return toMerge(input);
    case 'rebase':
      return toRebase(input);
    case 'rebase-with-history':
      return toRebaseWithHistory(input);
    case 'border':
      return toBorder(input, false, false);
    case 'border-with-history':
      return toBorder(input, false, true);
    case 'border-with-history2':
      return toBorder(input, true, true);
    case 'full':
      return toFull(input);
    default:
      throw new UsageError('imerge_goal_unsupported', {
        what: `Finishing with goal '${input.goal}' is not implemented by splintercat`,
        why: "git-imerge's drop and revert goals are set up by its own drop and revert commands",
        fix: [
          `Finish it with git-imerge: git-imerge finish --name ${input.name}`,
          `Or choose another goal: --goal ${GOALS.join('|')}`,
        ],
      });
  }
}

/**
 * git-imerge refuses the rebase goal when the branch being rebased (branch 2's axis) contains
 * merge commits, at `start` and when `simplify --goal rebase` switches to it.
 */
export async function assertRebasable(git: Git, commits2: string[]): Promise<void> {
  if (commits2.length === 0) return;
  const lines = await git.lines(['rev-list', '--no-walk=unsorted', '--parents', '--stdin'], {
    input: `${commits2.join('\n')}\n`,
  });
  const merges = lines
    .map((l) => l.split(' '))
    .filter((f) => f.length > 2)
    .map((f) => f[0] as string);
  if (merges.length > 0) {
    throw new UsageError('imerge_rebase_merges', {
      what: `The following commits on the to-be-rebased branch are merge commits:\n    ${merges.join('\n    ')}`,
      why: "--goal='rebase' is not yet supported for branches that include merges",
      fix: 'Use --goal merge, or rebase-with-history, or a border goal',
    });
  }
}

function cellOid(input: GoalInput, label: string, i1: number, i2: number): string {
  const oid = input.grid.cell(i1, i2).oid;
  if (oid === null) {
    throw new SplintercatError('imerge_incomplete', {
      what: `Cannot simplify to ${label} because merge ${cellId({ i1, i2 })} is not yet done`,
      fix: [
        `Run: splintercat imerge continue --name ${input.name}`,
        'Or simplify to a goal that needs fewer merges (merge, rebase, border)',
      ],
    });
  }
  return oid;
}

/** Every cell of the last column (i1 = len1-1), top to bottom, checked before anything is written. */
function rightColumn(input: GoalInput, label: string): string[] {
  const i1 = input.grid.len1 - 1;
  return Array.from({ length: input.grid.len2 }, (_, i2) => cellOid(input, label, i1, i2));
}

/** Every cell of the last row (i2 = len2-1), left to right. */
function bottomRow(input: GoalInput, label: string): string[] {
  const i2 = input.grid.len2 - 1;
  return Array.from({ length: input.grid.len1 }, (_, i1) => cellOid(input, label, i1, i2));
}

const edge1 = (input: GoalInput, i1: number): string => input.grid.cell(i1, 0).oid as string;
const edge2 = (input: GoalInput, i2: number): string => input.grid.cell(0, i2).oid as string;

async function toMerge(input: GoalInput): Promise<GoalResult> {
  const { grid } = input;
  const last = cellOid(input, 'merge', grid.len1 - 1, grid.len2 - 1);
  const parents = [edge1(input, grid.len1 - 1), edge2(input, grid.len2 - 1)];
  // git-imerge then runs `git commit --amend` for the user to edit this message; unedited, the
  // amended message gains the newline written here.
  const commit = await writeCommit(
    input.git,
    await treeOf(input.git, last),
    parents,
    input.message ?? `Merge ${input.tip2} into ${input.tip1} (using imerge)\n`,
  );
  return { commit, apex: commit };
}

/** A chain on tip1 with the right column's trees and branch 2's messages and authors, unchanged. */
async function toRebase(input: GoalInput): Promise<GoalResult> {
  const column = rightColumn(input, 'rebase');
  let parent = column[0] as string;
  for (let i2 = 1; i2 < column.length; i2++) {
    const orig = edge2(input, i2);
    parent = await copyCommit(input.git, column[i2] as string, orig, [parent]);
  }
  return { commit: parent, apex: column[column.length - 1] as string };
}

/** As rebase, but each new commit also has its original as second parent and says so. */
async function toRebaseWithHistory(input: GoalInput): Promise<GoalResult> {
  const column = rightColumn(input, 'rebase-with-history');
  let parent = column[0] as string;
  for (let i2 = 1; i2 < column.length; i2++) {
    const orig = edge2(input, i2);
    parent = await copyCommit(input.git, column[i2] as string, orig, [parent, orig], 'rebased-with-history');
  }
  return { commit: parent, apex: parent };
}

/**
 * The border goals: branch 2's commits but its last rebased onto tip1 (the right column), branch
 * 1's commits but its last rebased onto tip2 (the bottom row), and a merge of the two chains with
 * the last cell's tree. With history, a rebased commit also has its original as a parent (second
 * on the tip1 chain, first on the tip2 chain, as git-imerge orders them).
 */
async function toBorder(input: GoalInput, withHistory1: boolean, withHistory2: boolean): Promise<GoalResult> {
  const { git, grid } = input;
  const column = rightColumn(input, 'border');
  const row = bottomRow(input, 'border');
  let chain1 = column[0] as string;
  for (let i2 = 1; i2 < grid.len2 - 1; i2++) {
    const orig = edge2(input, i2);
    chain1 = await copyCommit(
      git,
      column[i2] as string,
      orig,
      withHistory2 ? [chain1, orig] : [chain1],
      withHistory2 ? 'rebased-with-history' : 'rebased',
    );
  }
  let chain2 = row[0] as string;
  for (let i1 = 1; i1 < grid.len1 - 1; i1++) {
    const orig = edge1(input, i1);
    chain2 = await copyCommit(
      git,
      row[i1] as string,
      orig,
      withHistory1 ? [orig, chain2] : [chain2],
      withHistory1 ? 'rebased-with-history' : 'rebased',
    );
  }
  const last = row[row.length - 1] as string;
  // No trailing newline: git-imerge hands this message to commit-tree exactly so.
  const commit = await writeCommit(
    git,
    await treeOf(git, last),
    [chain1, chain2],
    `Merge ${input.tip2} into ${input.tip1} (using imerge border)`,
  );
  return { commit, apex: commit };
}

/** Every cell must be filled; the branch points at the last cell. */
function toFull(input: GoalInput): GoalResult {
  const { grid } = input;
  for (let i1 = 1; i1 < grid.len1; i1++) {
    for (let i2 = 1; i2 < grid.len2; i2++) cellOid(input, '"full"', i1, i2);
  }
  const last = grid.cell(grid.len1 - 1, grid.len2 - 1).oid as string;
  return { commit: last, apex: last };
}

/** The parts of a commit object the goals copy, read through the long-lived cat-file (no process each). */
interface CommitParts {
  tree: string;
  /** The message exactly as stored, ending in a newline unless empty (git-imerge's get_log_message). */
  message: string;
  /** The author as commit-tree's environment: name, email and date with its own zone. */
  author: Record<string, string>;
}

async function readCommit(git: Git, commit: string): Promise<CommitParts> {
  const raw = (await git.readCommitCapped(commit))?.content.toString('utf8');
  if (raw === undefined)
    throw new SplintercatError('imerge_missing_commit', {
      what: `Commit ${commit} of the merge is missing, or over the size a commit may have`,
      fix: 'Check the repository (git fsck)',
    });
  const end = raw.indexOf('\n\n');
  const headers = end < 0 ? raw : raw.slice(0, end);
  const message = end < 0 ? '' : raw.slice(end + 2);
  const tree = /^tree ([0-9a-f]+)$/m.exec(headers)?.[1] ?? '';
  const a = /^author (.*?) ?<([^>]*)> (-?\d+) ([+-]\d{4})$/m.exec(headers);
  return {
    tree,
    message: message === '' || message.endsWith('\n') ? message : `${message}\n`,
    // Git's internal date format keeps the second and the zone, as %ai does for git-imerge.
    author: a
      ? { GIT_AUTHOR_NAME: a[1] as string, GIT_AUTHOR_EMAIL: a[2] as string, GIT_AUTHOR_DATE: `${a[3]} ${a[4]}` }
      : {},
  };
}

async function treeOf(git: Git, commit: string): Promise<string> {
  return (await readCommit(git, commit)).tree;
}

/** A copy of `orig`'s authorship with `treeFrom`'s tree on `parents`; `note` appends `(NOTE from commit ORIG)`. */
async function copyCommit(
  git: Git,
  treeFrom: string,
  orig: string,
  parents: string[],
  note?: 'rebased' | 'rebased-with-history',
): Promise<string> {
  const [cell, meta] = await Promise.all([readCommit(git, treeFrom), readCommit(git, orig)]);
  const message =
    note === undefined ? meta.message : `${meta.message.replace(/\n+$/, '')}\n\n(${note} from commit ${orig})\n`;
  return writeCommit(git, cell.tree, parents, message, meta.author);
}

function writeCommit(
  git: Git,
  tree: string,
  parents: string[],
  message: string,
  env?: Record<string, string>,
): Promise<string> {
  return git.text(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], { input: message, env });
}
