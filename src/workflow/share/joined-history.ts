import { UsageError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { getBoundaries } from '../../imerge/boundaries.js';
import type { Logger } from '../../log/logger.js';
import type { RunState } from '../../store/run-state.js';
import { printableName } from '../../util/safe-print.js';
import { shortOid } from '../../util/short-oid.js';

/**
 * What a joining clone checks of the history a snapshot and the engine's refs name, since both
 * come from any teammate's push: the merge's starting point is in this clone's target branch, its
 * source commit is in this clone's source ref when it has one, and the grid's edges (the
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
  const { target, source } = state;
  const here = await git.revParse(`refs/heads/${target.branch}^{commit}`);
  if (here !== null && !(await git.isAncestor(target.originalOid, here)))
    throw notOurHistory(
      name,
      remote,
      `it starts from ${shortOid(target.originalOid)}, which ${printableName(target.branch)} here does not hold`,
      `Bring ${printableName(target.branch)} up to date (git pull), then join again`,
    );
  const sourceHere = await git.revParse(`${source.ref}^{commit}`).catch(() => null);
  if (sourceHere === null)
    options.log.warn(
      { source: source.ref, commit: source.oid },
      `[share] ${printableName(source.ref)} is not in this clone: the run's source commit ${shortOid(source.oid)} is taken as the run names it (fetch it to have it checked)`,
    );
  else if (!(await git.isAncestor(source.oid, sourceHere)))
    throw notOurHistory(
      name,
      remote,
      `it merges ${shortOid(source.oid)}, which ${printableName(source.ref)} here does not hold`,
      `Fetch ${printableName(source.ref)} (git fetch), then join again`,
    );
  const edges = await edgeProblem(git, name, target.originalOid, source.oid, options.firstParent);
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
