import type { Git } from '../../git/index.js';
import type { FinalDrops } from '../../store/drops-state.js';
import { auditMerge } from './audit-tree.js';
import { fileDrops } from './file-drops.js';
import { changedBlobs } from './tree-versions.js';

/** At most this many files are audited at the end of a merge (those both sides changed, conflicted ones first). */
const MAX_FINAL_FILES = 2_000;

/** The commits of a finished grid: the merge base, the fork's tip, upstream's tip, and the merge result. */
export interface MergeTips {
  base: string;
  fork: string;
  upstream: string;
  merged: string;
}

/**
 * The survival audit of the whole merge: the fork's delta (base → fork tip) and upstream's (base →
 * upstream tip) against the merge result, for every file both sides changed and every file that
 * conflicted on the way. A file only one side changed is taken whole by git and not audited.
 */
export async function auditFinalMerge(git: Git, tips: MergeTips, conflicted: readonly string[]): Promise<FinalDrops> {
  const [fork, upstream] = await Promise.all([
    changedBlobs(git, tips.base, tips.fork),
    changedBlobs(git, tips.base, tips.upstream),
  ]);
  const both = [...fork.keys()].filter((p) => upstream.has(p));
  const all = [...new Set([...conflicted, ...both])];
  const paths = all.slice(0, MAX_FINAL_FILES);
  const versions = { base: tips.base, ours: tips.fork, theirs: tips.upstream, resolved: tips.merged };
  const audits = await auditMerge(git, versions, paths);
  const files = audits.flatMap((a) => {
    const drops = fileDrops(a);
    return drops ? [{ path: a.path, drops }] : [];
  });
  return { files, notAudited: all.length - paths.length };
}
