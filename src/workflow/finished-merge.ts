import type { Git } from '../git/index.js';
import type { RunState } from '../store/run-state.js';

/** Where a run's fork branch is: its merge commit when the run finished, else where it is now. */
export type ForkAt =
  { finished: true; commit: string; tip: string | null; recorded: boolean } | { finished: false; tip: string | null };

/**
 * Whether run `state` finished its merge: its state says so (`done`, with the merge commit), or
 * the fork branch holds the run's merge commit (parents: the original tip, then upstream's) of a
 * run stopped after the branch moved and before its state was saved (`recorded` false). `tip`:
 * where the fork branch is now (null when it is gone).
 */
export async function forkAt(git: Git, state: RunState): Promise<ForkAt> {
  const tip = await git.revParse(`refs/heads/${state.fork.branch}`);
  if (state.status === 'done' && state.finalCommit)
    return { finished: true, commit: state.finalCommit, tip, recorded: true };
  if (tip === null || tip === state.fork.originalOid) return { finished: false, tip };
  const [, ...parents] = (await git.text(['rev-list', '--parents', '-n', '1', tip])).split(' ');
  const merge = parents.length === 2 && parents[0] === state.fork.originalOid && parents[1] === state.upstream.oid;
  return merge ? { finished: true, commit: tip, tip, recorded: false } : { finished: false, tip };
}
