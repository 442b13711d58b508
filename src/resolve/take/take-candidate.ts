import type { Git } from '../../git/index.js';
import { replaceFileWithin } from '../../util/replace-file.js';
import { printableName, shellWord } from '../../util/safe-print.js';
import { listUnmerged } from '../parse/stages.js';
import { loadCandidates } from './candidate-store.js';
import { numberHunks, stagesId } from './hunk-numbers.js';
import { loadConflict } from './loaded-conflict.js';
import { leftToDo, plainNext, type TakeOutcome } from './take-in-tree.js';

/**
 * `splintercat take candidate K FILE`: write the K-th resolution the model offered for FILE (kept
 * when its candidates disagreed or its reviewer did not accept it) as the file, and stage it.
 * The text is written as data, never run; a candidate kept for another merge of the path is refused.
 */
export async function takeCandidate(git: Git, top: string, path: string, k: number): Promise<TakeOutcome> {
  const gitDir = await git.gitDir(false);
  const outcome: TakeOutcome = { taken: [], refused: [], left: [], then: '' };
  const entry = (await listUnmerged(git, [path]))[0];
  const q = shellWord(path);
  const candidates = entry ? await loadCandidates(gitDir, path, stagesId(entry)) : [];
  const chosen = candidates[k - 1];
  let then: string | undefined;
  if (!entry) {
    outcome.refused.push({
      path,
      why: `${printableName(path)} is not conflicted: there is nothing to take a candidate for`,
      fix: ['git status   # the paths still conflicted'],
    });
  } else if (!chosen) {
    outcome.refused.push({
      path,
      why:
        candidates.length === 0
          ? `the model offered no candidate for ${printableName(path)} in this merge`
          : `${printableName(path)} has no candidate ${k} (its candidates: ${candidates.map((_, i) => i + 1).join(', ')})`,
      fix:
        candidates.length === 0
          ? [`splintercat take ours|theirs|both ${q}`]
          : [`splintercat take candidate ${candidates.length} ${q}`],
    });
  } else {
    const loaded = await loadConflict(git, top, entry);
    if (loaded.file) then = (await numberHunks(gitDir, path, loaded.stages, loaded.file.hunks, loaded.latin1)).then;
    if (!replaceFileWithin(top, path, chosen.text))
      outcome.refused.push({ path, why: `${printableName(path)} is not inside the working tree`, fix: [] });
    else {
      await git.run(['add', '--', path]);
      outcome.taken.push({
        path,
        hunks: [],
        staged: true,
        whole: `wrote candidate ${k} (by ${printableName(chosen.modelId)})`,
      });
    }
  }
  outcome.left = await leftToDo(git, top, gitDir);
  outcome.then = then ?? (await plainNext(gitDir));
  return outcome;
}
