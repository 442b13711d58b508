import type { Git } from '../git/index.js';
import { parseConflictText, printWithResolutions } from '../resolve/parse/markers.js';
import { sameCompiledCode, type SameCode } from '../resolve/syntax/same-code.js';
import type { ConflictState } from '../store/run-state.js';

/**
 * Does this resolution change no compiled byte? It does not when it changed nothing but its
 * conflicted files, each a text conflict, and each resolved file compiles to the same bytes as
 * the file with every hunk taken from the fork side and with every hunk taken from the upstream
 * side (whitespace within lines and comments only, proven from tree-sitter parses, in a language
 * whose compiler sees tokens only: `tokensOnly` in `resolve/syntax/language-profiles.ts`): whatever
 * was chosen, the program is the one the sides agree on, so no check can tell this resolution apart.
 */
export async function changesNoCode(git: Git, conflict: ConflictState): Promise<SameCode> {
  const no = (why: string): SameCode => ({ same: false, why });
  if (conflict.resolutionCommit === null || conflict.resolutionTree === null) return no('not resolved');
  if (conflict.files.some((f) => f.kind !== 'content')) return no('a file-level conflict (not only text)');
  const [, above, left] = (await git.text(['rev-list', '--parents', '-n', '1', conflict.resolutionCommit])).split(' ');
  if (!above || !left) return no('the resolution commit is not a merge');
  const merged = await git.run(
    ['-c', 'merge.conflictStyle=diff3', 'merge-tree', '--write-tree', '--no-messages', '--name-only', above, left],
    { okExitCodes: [0, 1] },
  );
  const [conflictTree = '', ...rest] = merged.stdout.split('\n');
  const conflicted = new Set(rest.filter(Boolean));
  const changed = await git.lines([
    'diff-tree',
    '-r',
    '--name-only',
    '--no-renames',
    conflictTree,
    conflict.resolutionTree,
  ]);
  const paths = new Set(conflict.files.map((f) => f.path));
  const outside = changed.filter((p) => !paths.has(p) || !conflicted.has(p));
  if (outside.length > 0) return no(`it also changes ${outside.slice(0, 3).join(', ')}`);
  // A file the person deleted (`git rm` of a conflicted file) is a change of code, whatever it held.
  const deleted = await git.lines([
    'diff-tree',
    '-r',
    '--name-only',
    '--no-renames',
    '--diff-filter=D',
    conflictTree,
    conflict.resolutionTree,
  ]);
  if (deleted.length > 0) return no(`it deletes ${deleted.slice(0, 3).join(', ')}`);
  for (const path of changed) {
    const blob = async (tree: string): Promise<string> =>
      (await git.run(['cat-file', 'blob', `${tree}:${path}`])).stdout;
    const parsed = parseConflictText(await blob(conflictTree), { path });
    if (parsed.hunks.length === 0) return no(`${path}: no conflict hunk to compare`);
    const side = (pick: 'ours' | 'theirs'): string =>
      printWithResolutions(parsed, new Map(parsed.hunks.map((h) => [h.index, h[pick]])));
    const same = await sameCompiledCode(path, [await blob(conflict.resolutionTree), side('ours'), side('theirs')]);
    if (!same.same) return same;
  }
  return { same: true };
}
