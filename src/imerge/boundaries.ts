import type { SplintercatError } from '../errors/index.js';
import { UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';

/** The edges of a grid: merge base and the commits of each branch in chronological order. */
export interface Boundaries {
  mergeBase: string;
  commits1: string[];
  commits2: string[];
}

/** git-imerge's compute_best_merge_base: the base with the fewest non-merge commits to tip1. */
async function bestMergeBase(
  git: Git,
  tip1: string,
  tip2: string,
  names: [string, string] = [tip1, tip2],
): Promise<string> {
  const bases = await git.mergeBases(tip1, tip2);
  if (bases.length === 0) {
    throw new UsageError('imerge_no_merge_base', {
      what: `'${names[0]}' and '${names[1]}' do not have a common merge base`,
      fix: 'Check the branch names; an incremental merge needs related histories',
    });
  }
  let best = bases[0] as string;
  if (bases.length === 1) return best; // nothing to compare: spare the count
  let bestCount = Infinity;
  for (const base of bases) {
    const count = Number(await git.text(['rev-list', '--no-merges', '--count', `${base}..${tip1}`]));
    if (count < bestCount) {
      best = base;
      bestCount = count;
    }
  }
  return best;
}

/**
 * git-imerge's linear_ancestry: the commits from `from` (exclusive) to `to` along
 * `rev-list --ancestry-path --topo-order`; a merge with two parents on the path is an error unless
 * `firstParent`, which follows the first such parent.
 */
export async function linearAncestry(git: Git, from: string, to: string, firstParent: boolean): Promise<string[]> {
  return ancestryOfCommits(
    git,
    await git.resolve(`${from}^{commit}`),
    await git.resolve(`${to}^{commit}`),
    firstParent,
    from,
    to,
  );
}

/** linearAncestry between two commit ids (`from` and `to` name them in errors). */
async function ancestryOfCommits(
  git: Git,
  oid1: string,
  oid2: string,
  firstParent: boolean,
  from: string,
  to: string,
): Promise<string[]> {
  const parentage = new Map<string, string[]>([[oid1, []]]);
  for (const line of await git.lines([
    'rev-list',
    '--parents',
    '--ancestry-path',
    '--topo-order',
    `${oid1}..${oid2}`,
  ])) {
    const [c, ...ps] = line.split(' ');
    parentage.set(c as string, ps);
  }
  const commits: string[] = [];
  let commit = oid2;
  while (commit !== oid1) {
    const included = (parentage.get(commit) ?? []).filter((p) => parentage.has(p));
    if (included.length === 0) {
      throw new UsageError('imerge_not_ancestor', {
        what: `Commit "${from}" is not a first-parent ancestor of "${to}"`,
        fix: 'Check the branch names',
      });
    }
    if (included.length > 1 && !firstParent) {
      throw new UsageError('imerge_nonlinear', {
        what: `The history "${from}..${to}" is not linear`,
        why: `Commit ${commit} is a merge whose parents are both on the path`,
        fix: 'Perhaps use "--first-parent"?',
      });
    }
    commits.push(commit);
    commit = included[0] as string;
  }
  return commits.reverse();
}

/** git-imerge's get_boundaries. */
export async function getBoundaries(git: Git, tip1: string, tip2: string, firstParent: boolean): Promise<Boundaries> {
  // Each tip resolved once, through the long-lived object reader, and the merge base is a commit
  // id already: fewer git processes. A tip that does not resolve gets rev-parse's error.
  const commitOf = async (tip: string): Promise<string> =>
    (await git.objectInfo(`${tip}^{commit}`))?.oid ?? git.resolve(`${tip}^{commit}`);
  const [oid1, oid2] = await Promise.all([commitOf(tip1), commitOf(tip2)]);
  const mergeBase = await bestMergeBase(git, oid1, oid2, [tip1, tip2]);
  const commits1 = await ancestryOfCommits(git, mergeBase, oid1, firstParent, mergeBase, tip1);
  if (commits1.length === 0) throw nothingToDo(tip1, tip2);
  const commits2 = await ancestryOfCommits(git, mergeBase, oid2, firstParent, mergeBase, tip2);
  if (commits2.length === 0) throw nothingToDo(tip2, tip1);
  return { mergeBase, commits1, commits2 };
}

function nothingToDo(src: string, dst: string): SplintercatError {
  return new UsageError('imerge_nothing_to_do', {
    what: `There are no commits on "${src}" that are not already in "${dst}"`,
    fix: 'Nothing to merge: the branches are already merged (a fast-forward is enough)',
  });
}
