import type { ConflictState, HandoffConflict, HandoffFile } from '../../store/run-state.js';
import { printableName as shown, shellWord } from '../../util/safe-print.js';

/** The files of a resolved conflict presented again with its resolution in place, to amend after a failed check. */
export function amendFiles(conflict: ConflictState, check: string): HandoffFile[] {
  return conflict.files.map((f) => ({
    path: f.path,
    kind: f.kind,
    instructions: `the resolution of ${shown(f.path)} is in place (no markers)${byPolicy(f)}; check '${shown(check)}' failed on it: amend the file (or \`git rm -q -- ${shellWord(f.path)}\` / \`git add -- ${shellWord(f.path)}\`), or commit a fix in this worktree`,
  }));
}

/** `, as the fork's policy decided it (GLOB: DECISION)` for a file whose every hunk the policy settled (it would again). */
function byPolicy(f: ConflictState['files'][number]): string {
  if (f.hunks.length === 0 || !f.hunks.every((h) => h.rung === 'policy')) return '';
  const rules = [...new Set(f.hunks.map((h) => h.by ?? '?'))];
  return `, as the fork's policy decided it (${rules.map(shown).join('; ')} in resolve.paths; the ladder would decide it the same again)`;
}

/** The conflict at `cell` presented again, its resolution in place, with the failure that brought it back. */
export function amendEntry(
  conflict: ConflictState,
  worktree: string,
  failure: NonNullable<HandoffConflict['failure']>,
  files: HandoffConflict['files'],
): HandoffConflict {
  return {
    conflict: conflict.id,
    worktree,
    files,
    failure,
    model: [],
    refused: [],
    ...(conflict.resolutionTree ? { blamedTree: conflict.resolutionTree } : {}),
  };
}
