import { SplintercatError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import type { RunState } from './run-state.js';
import { shortOid } from '../util/short-oid.js';

/**
 * What is wrong with the final commit a state records, or null when it is sound (or
 * none is recorded on a run that is not done). A "done" run must name a commit in the
 * repository that is the run's result: for goal `merge`, a two-parent merge of the
 * fork's original tip and upstream's; for the other goals, a descendant of the
 * fork's original tip. A hand-edited or corrupted state that says otherwise is never
 * taken for a finished merge.
 */
export async function finalCommitProblem(git: Git, state: RunState): Promise<string | null> {
  const commit = state.finalCommit;
  if (commit === null) return state.status === 'done' ? 'the run is marked done but records no final commit' : null;
  // One read through the long-lived object reader, not a process per question.
  const object = await git.readObject(commit);
  if (object === null) return `the final commit ${commit} is not in the repository`;
  if (object.type !== 'commit') return `the final commit ${commit} is a ${object.type}, not a commit`;
  const tips = `${shortOid(state.fork.originalOid)} (${state.fork.branch}) and ${shortOid(state.upstream.oid)} (${state.upstream.ref})`;
  if (state.goal === 'merge') {
    const header = object.content.toString('utf8').split('\n\n', 1)[0] ?? '';
    const parents = header
      .split('\n')
      .flatMap((line) => (line.startsWith('parent ') ? [line.slice('parent '.length)] : []));
    if (parents.length !== 2 || parents[0] !== state.fork.originalOid || parents[1] !== state.upstream.oid) {
      return `the final commit ${commit} is not the two-parent merge of the run's tips ${tips} (its parents: ${parents.map((p) => shortOid(p)).join(', ') || 'none'})`;
    }
    return null;
  }
  const ancestor = await git.run(['merge-base', '--is-ancestor', state.fork.originalOid, commit], {
    okExitCodes: [0, 1, 128],
  });
  if (ancestor.exitCode !== 0) return `the final commit ${commit} does not descend from ${tips.split(' and ')[0]}`;
  return null;
}

/** Throw an actionable error when the state's final commit is not the run's result (see finalCommitProblem). */
export async function assertFinalCommit(git: Git, state: RunState, stateFile: string): Promise<void> {
  const problem = await finalCommitProblem(git, state);
  if (problem === null) return;
  throw new SplintercatError('state_final_commit_invalid', {
    what: `The run state of merge '${state.name}' cannot be trusted: ${problem}`,
    why: `The state says "${state.status}", but the commit it names is not a result of this merge (the state file was edited or damaged); the merge is not treated as finished.`,
    fix: [
      `See what doctor finds: splintercat doctor --name ${state.name}`,
      `Rebuild the state from the journal and refs: splintercat doctor --rebuild --name ${state.name}`,
      `Or drop the run and start over: splintercat abort --name ${state.name}`,
    ],
    where: stateFile,
  });
}
