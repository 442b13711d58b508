import { UsageError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { getBoundaries } from '../../imerge/boundaries.js';
import type { Logger } from '../../log/logger.js';
import type { RunState } from '../../store/run-state.js';
import { printableName } from '../../util/safe-print.js';
import { shortOid } from '../../util/short-oid.js';

/**
 * What a joining clone checks of the history a snapshot and the engine's refs name, since both
 * come from any teammate's push: the merge's starting point is in this clone's fork branch, its
 * upstream commit is in this clone's upstream ref when it has one, and the grid's edges (the
 * `manual/I-0` and `manual/0-J` refs) are exactly the two sides' commits since their merge base, as
 * this clone computes them. A grid whose edges were swapped for other commits would merge those
 * into the fork as upstream's.
 */
export async function assertJoinedHistory(
  git: Git,
  state: RunState,
  options: { name: string; remote: string; firstParent: boolean; log: Logger },
): Promise<void> {
  const { name, remote } = options;
  const { fork, upstream } = state;
  const here = await git.revParse(`refs/heads/${fork.branch}^{commit}`);
  if (here !== null && !(await git.isAncestor(fork.originalOid, here)))
    throw notOurHistory(
      name,
      remote,
      `it starts from ${shortOid(fork.originalOid)}, which ${printableName(fork.branch)} here does not hold`,
      `Bring ${printableName(fork.branch)} up to date (git pull), then join again`,
    );
  const upstreamHere = await git.revParse(`${upstream.ref}^{commit}`).catch(() => null);
  if (upstreamHere === null)
    options.log.warn(
      { source: upstream.ref, commit: upstream.oid },
      `[share] ${printableName(upstream.ref)} is not in this clone: the run's upstream commit ${shortOid(upstream.oid)} is taken as the run names it (fetch it to have it checked)`,
    );
  else if (!(await git.isAncestor(upstream.oid, upstreamHere)))
    throw notOurHistory(
      name,
      remote,
      `it merges ${shortOid(upstream.oid)}, which ${printableName(upstream.ref)} here does not hold`,
      `Fetch ${printableName(upstream.ref)} (git fetch), then join again`,
    );
  const edges = await edgeProblem(git, name, fork.originalOid, upstream.oid, options.firstParent);
  if (edges !== null)
    throw notOurHistory(
      name,
      remote,
      edges,
      'Ask whoever started the merge which commits it merges, and share it again',
    );
}

/** Why the grid's edge refs are not the two sides' commits since their merge base, or null. */
async function edgeProblem(
  git: Git,
  name: string,
  forkTip: string,
  upstreamTip: string,
  firstParent: boolean,
): Promise<string | null> {
  const { commits1, commits2 } = await getBoundaries(git, forkTip, upstreamTip, firstParent);
  const prefix = `refs/imerge/${name}/manual/`;
  for (const { ref, oid } of await git.forEachRef(prefix)) {
    const match = /^(\d+)-(\d+)$/.exec(ref.slice(prefix.length));
    if (match === null) continue;
    const [i, j] = [Number(match[1]), Number(match[2])];
    const expected = j === 0 && i > 0 ? commits1[i - 1] : i === 0 && j > 0 ? commits2[j - 1] : undefined;
    if ((i === 0 || j === 0) && i + j > 0 && expected !== oid)
      return `its grid's edge ${i}-${j} is ${shortOid(oid)}, not the commit ${expected ? shortOid(expected) : '(none)'} of the history it merges`;
  }
  return null;
}

function notOurHistory(name: string, remote: string, why: string, fix: string): UsageError {
  return new UsageError('share_snapshot_invalid', {
    what: `Cannot join '${name}' from ${remote}: the merge it shares is not of this clone's history`,
    why,
    fix,
  });
}
