/**
 * What starting an incremental merge checks and records before any merge: a goal, name and branch
 * git accepts, a name no other merge uses, and the grid's edges (merge base and both branches'
 * commits), so a refused start leaves the repository as it was.
 */

import { UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import { getBoundaries } from './boundaries.js';
import { assertRebasable } from './finish-goals.js';
import { Grid } from './grid.js';
import { ALLOWED_GOALS, imergePrefix, STATE_VERSION, type StateBlob } from './state.js';

export interface StartOptions {
  name: string;
  goal?: string;
  /** Branch 1 (HEAD side); default: the current branch, or 'HEAD' when detached. */
  tip1?: string;
  tip2: string;
  branch?: string;
  firstParent?: boolean;
  manual?: boolean;
}

/** A goal git-imerge knows, or a UsageError listing them. */
export function assertGoal(goal: string): void {
  if (!(ALLOWED_GOALS as readonly string[]).includes(goal)) {
    throw new UsageError('imerge_bad_goal', {
      what: `Unknown goal '${goal}'`,
      fix: `Use one of: ${ALLOWED_GOALS.join(', ')}`,
    });
  }
}

/** The state blob and grid of a new merge of tip2 into tip1 (nothing written yet), or a UsageError. */
export async function initialState(git: Git, options: StartOptions): Promise<{ state: StateBlob; grid: Grid }> {
  const { name } = options;
  const goal = options.goal ?? 'merge';
  assertGoal(goal);
  const fmt = await git.run(['check-ref-format', `refs/imerge/${name}`], { okExitCodes: [0, 1] });
  if (fmt.exitCode !== 0)
    throw new UsageError('imerge_bad_name', {
      what: `Name '${name}' is not a valid refname component!`,
      fix: 'Choose a name usable in a git ref (e.g. letters, digits, dashes)',
    });
  const branch = options.branch ?? name;
  const bfmt = await git.run(['check-ref-format', `refs/heads/${branch}`], { okExitCodes: [0, 1] });
  if (bfmt.exitCode !== 0)
    throw new UsageError('imerge_bad_branch', {
      what: `Name '${branch}' is not a valid branch name!`,
      fix: 'Choose another --branch',
    });
  if ((await git.lines(['for-each-ref', `${imergePrefix(name)}/`])).length > 0) {
    throw new UsageError('imerge_name_in_use', {
      what: `Name '${name}' is already in use!`,
      why: `An incremental merge called '${name}' exists (refs under ${imergePrefix(name)}/)`,
      fix: [
        `Continue it: splintercat imerge continue --name ${name}`,
        `Or remove it first: splintercat imerge remove --name ${name}`,
      ],
    });
  }
  const tip1 = options.tip1 ?? (await git.currentBranch()) ?? 'HEAD';
  const { mergeBase, commits1, commits2 } = await getBoundaries(git, tip1, options.tip2, options.firstParent ?? false);
  if (goal === 'rebase') await assertRebasable(git, commits2);
  const grid = new Grid(commits1.length + 1, commits2.length + 1);
  const edge = (i1: number, i2: number, oid: string): void => {
    const c = grid.cell(i1, i2);
    c.oid = oid;
    c.manual = true;
  };
  edge(0, 0, mergeBase);
  commits1.forEach((c, k) => edge(k + 1, 0, c));
  commits2.forEach((c, k) => edge(0, k + 1, c));
  const state: StateBlob = {
    blockers: [],
    branch,
    goal,
    goalopts: null,
    manual: options.manual ?? false,
    tip1,
    tip2: options.tip2,
    version: STATE_VERSION,
  };
  return { state, grid };
}
