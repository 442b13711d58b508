import { UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import { removeAncestryFile } from './grid-ancestry.js';
import { imergePrefix, scratchRef } from './state.js';

/**
 * Names of every incremental merge in the repository (those with a state blob). Only the state
 * refs are listed (`*` matches across `/` here): the type of every cell's commit is not looked up.
 */
export async function listImerges(git: Git): Promise<string[]> {
  const lines = await git.lines(['for-each-ref', '--format=%(objecttype) %(refname)', 'refs/imerge/*/state']);
  const names: string[] = [];
  for (const line of lines) {
    const m = /^blob refs\/imerge\/(.+)\/state$/.exec(line);
    if (m) names.push(m[1] as string);
  }
  return names;
}

/** git-imerge's choose_merge_name. */
export async function chooseImergeName(git: Git, name?: string): Promise<string> {
  const names = await listImerges(git);
  if (name !== undefined) {
    if (!names.includes(name)) {
      throw new UsageError('imerge_not_found', {
        what: `There is no incremental merge called '${name}'!`,
        fix: 'List them with: splintercat imerge list',
      });
    }
    if (names.length > 1) await git.run(['config', 'imerge.default', name]);
    return name;
  }
  const dflt = await git.configGet('imerge.default');
  if (dflt) {
    if (names.includes(dflt)) return dflt;
    await git.run(['config', '--unset', 'imerge.default'], { okExitCodes: [0, 5] });
    throw new UsageError('imerge_default_gone', {
      what: `The default incremental merge '${dflt}' has disappeared`,
      why: 'The setting imerge.default has been cleared',
      fix: 'Please try again',
    });
  }
  if (names.length === 1) return names[0] as string;
  throw new UsageError('imerge_name_needed', {
    what:
      names.length === 0
        ? 'There is no incremental merge in this repository'
        : 'Please select an incremental merge using --name',
    fix:
      names.length === 0 ? 'Start one: splintercat imerge start --name NAME BRANCH' : `Existing: ${names.join(', ')}`,
  });
}

/**
 * Remove an incremental merge even when its state is unreadable: every ref under
 * refs/imerge/NAME/, the scratch branch, and imerge.default if it names it.
 */
export async function removeImerge(git: Git, name: string): Promise<void> {
  const refs = await git.forEachRef(`${imergePrefix(name)}/`);
  const updates = refs.map((r) => ({ ref: r.ref, delete: true as const, oldOid: r.oid }));
  const scratch = await git.revParse(scratchRef(name));
  if (scratch !== null) updates.push({ ref: scratchRef(name), delete: true, oldOid: scratch });
  await git.updateRefs(updates, `imerge: remove merge '${name}'`);
  await removeAncestryFile(git, name);
  if ((await git.configGet('imerge.default')) === name)
    await git.run(['config', '--unset', 'imerge.default'], { okExitCodes: [0, 5] });
}
