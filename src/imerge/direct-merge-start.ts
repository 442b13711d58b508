import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NEUTRALISED_CONFIG } from '../git/git-env.js';
import type { Git } from '../git/index.js';
import { parseMergeTreeOutput } from './merge-tree.js';

/**
 * The engine's fast path for presenting a conflicting cell in the working tree: `git checkout` of
 * the scratch branch and `git merge --no-commit` without running them, leaving exactly what they leave.
 * On git 2.39 the two porcelain commands read and write the whole index twice and `git merge` also
 * runs `git stash create`, which reads it a third time. Here HEAD moves to the scratch branch with the
 * checkout's reflog message, `merge-tree` computes the merge git would make (the same merge-ort,
 * the same labels, the same messages), one `read-tree -m -u` takes the index and the files from the
 * old commit to the result, and `update-index` puts the conflicted paths' stages in place of the
 * files with markers. Then come the files `git merge` writes: MERGE_HEAD, MERGE_MSG, MERGE_MODE,
 * ORIG_HEAD, AUTO_MERGE.
 *
 * It covers the common case only, where the result is certain to be the same:
 * - nothing configured that changes what either command does: rerere, `merge.*` options, message
 *   cleanup or comment characters, sparse checkout, submodule recursion, hooks that run at a
 *   checkout or a ref update;
 * - HEAD on another branch, or detached at a commit a ref names (checkout then says "Previous HEAD
 *   position was", never the warning about commits left behind);
 * - the same `.gitattributes` at the old commit and at the scratch branch (merge-tree reads the
 *   attributes of the files as they are, still the old commit's);
 * - only text or binary content conflicts of regular files (no renames, deletions, modes,
 *   symlinks or submodules).
 * Otherwise it returns null, having changed nothing, and the caller runs the porcelain. The lines it
 * prints are git's untranslated ones, as the porcelain's are: splintercat runs git in the C locale.
 */
export interface DirectMergeStart {
  /** What `git checkout` prints on stderr. */
  checkoutStderr: string;
  /** What `git merge` prints on stdout. */
  mergeStdout: string;
}

/** Config that changes what checkout or merge does, beyond what merge-tree honours itself. */
const UNSUPPORTED_CONFIG =
  /^(rerere\.enabled|merge\.|commit\.cleanup|core\.(commentchar|commentstring|hookspath|sparsecheckout)|submodule\.recurse)/;
/** Of those, what keeps the direct path: merge-tree applies conflictStyle as git merge does; the rest when off. */
const harmless = (key: string, value: string): boolean =>
  key === 'merge.conflictstyle' ||
  // What splintercat sets for every git it runs (hooks off): the porcelain would run with it too.
  NEUTRALISED_CONFIG.some(([k, v]) => k.toLowerCase() === key && v === value) ||
  (['rerere.enabled', 'core.sparsecheckout', 'submodule.recurse'].includes(key) &&
    ['false', 'no', 'off', '0'].includes(value.toLowerCase()));
/** The message types of merge-tree whose conflicts this path records like git merge does. */
const CONTENT_MESSAGES = new Set(['Auto-merging', 'CONFLICT (contents)', 'CONFLICT (binary)']);
const REGULAR_FILE = /^100(644|755)$/;

/**
 * Move HEAD to the scratch branch `branch` (already at `above`) and leave `git merge --no-commit -m
 * message left` in progress, as `git checkout branch && git merge ...` would. Returns null, with
 * nothing changed, when the repository needs the porcelain.
 */
export async function startMergeDirectly(
  git: Git,
  branch: string,
  above: string,
  left: string,
  message: string,
  /** Whether a ref certainly names a commit (the merge's cells: saves them a scan of every ref). */
  named: (commit: string) => boolean = () => false,
): Promise<DirectMergeStart | null> {
  const branchRef = `refs/heads/${branch}`;
  const [headRef, old, dirs, config] = await Promise.all([
    git
      .run(['symbolic-ref', '--quiet', 'HEAD'], { okExitCodes: [0, 1, 128] })
      .then((r) => (r.exitCode === 0 ? r.stdout.trim() : null)),
    git.revParse('HEAD'),
    git.lines(['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir']),
    git.run(['config', '-z', '--get-regexp', UNSUPPORTED_CONFIG.source], { okExitCodes: [0, 1] }),
  ]);
  const [gitDir, commonDir] = dirs as [string, string];
  if (old === null || old === above || headRef === branchRef) return null;
  if (headRef !== null && !headRef.startsWith('refs/heads/')) return null;
  for (const entry of config.stdout.split('\0').filter(Boolean)) {
    const [key = '', value = ''] = entry.split('\n');
    if (!harmless(key, value)) return null;
  }
  // rerere runs without rerere.enabled when its directory exists.
  const rerereSet = /(^|\0)rerere\.enabled\n/.test(config.stdout);
  if (!rerereSet && existsSync(join(commonDir, 'rr-cache'))) return null;
  if (['post-checkout', 'reference-transaction'].some((hook) => existsSync(join(commonDir, 'hooks', hook))))
    return null;

  const [attributes, previous] = await Promise.all([
    git.run(['diff-tree', '--quiet', old, above, '--', '*.gitattributes'], { okExitCodes: [0, 1] }),
    headRef === null ? previousPosition(git, old, named(old)) : Promise.resolve(''),
  ]);
  if (attributes.exitCode !== 0 || previous === null) return null;

  const oldName = headRef === null ? old : headRef.slice('refs/heads/'.length);
  const restore = (): Promise<unknown> =>
    headRef === null
      ? git.run(['update-ref', '--no-deref', '-m', `checkout: moving from ${branch} to ${old}`, 'HEAD', old])
      : git.run(['symbolic-ref', '-m', `checkout: moving from ${branch} to ${oldName}`, 'HEAD', headRef]);

  await git.run(['symbolic-ref', '-m', `checkout: moving from ${oldName} to ${branch}`, 'HEAD', branchRef]);
  // The labels are git merge's: HEAD, and the other commit as named on its command line.
  const result = await git.run(['merge-tree', '--write-tree', '--messages', '-z', 'HEAD', left], {
    okExitCodes: [0, 1, 128],
  });
  const merged = parseMergeTreeOutput(result.stdout);
  const conflicted = result.exitCode === 1 ? contentConflicts(merged) : null;
  if (conflicted === null) {
    await restore();
    return null;
  }
  const read = await git.run(['read-tree', '-m', '-u', old, merged.tree], { okExitCodes: [0, 128] });
  if (read.exitCode !== 0) {
    // An untracked file in the way: nothing was written; the porcelain says so in git's words.
    await restore();
    return null;
  }
  await Promise.all([
    writeFile(join(gitDir, 'MERGE_HEAD'), `${left}\n`),
    writeFile(join(gitDir, 'MERGE_MODE'), ''),
    writeFile(
      join(gitDir, 'MERGE_MSG'),
      `${message}\n\n# Conflicts:\n${conflicted.paths.map((p) => `#\t${p}\n`).join('')}`,
    ),
    git.run(['update-ref', '--no-deref', '--stdin'], {
      input: `update ORIG_HEAD ${above}\nupdate AUTO_MERGE ${merged.tree}\n`,
    }),
  ]);
  const zero = '0'.repeat(left.length);
  const info = [
    ...conflicted.paths.map((p) => `0 ${zero}\t${p}`),
    ...merged.stages.map(({ stage, entry }) => `${entry.mode} ${entry.oid} ${stage}\t${entry.path}`),
  ];
  await git.run(['update-index', '-z', '--index-info'], { input: `${info.join('\0')}\0` });

  return {
    checkoutStderr: `${previous}Switched to branch '${branch}'\n`,
    mergeStdout: `${merged.messages.map((m) => `${m.text}\n`).join('')}Automatic merge failed; fix conflicts and then commit the result.\n`,
  };
}

/**
 * What checkout says on leaving a detached HEAD for another commit: "Previous HEAD position was"
 * and the commit, when a ref names it. Null when none does (checkout would walk every ref to
 * see whether commits are being left behind).
 */
async function previousPosition(git: Git, old: string, known: boolean): Promise<string | null> {
  const [named, line] = await Promise.all([
    known ||
      git.text(['for-each-ref', '--count=1', '--format=%(refname)', `--points-at=${old}`]).then((ref) => ref !== ''),
    git.text(['log', '--no-walk', '--format=%h %s', old]),
  ]);
  return named ? `Previous HEAD position was ${line}\n` : null;
}

/** The conflicted paths, in index order, when every conflict is one this path reproduces; else null. */
function contentConflicts(merged: ReturnType<typeof parseMergeTreeOutput>): { paths: string[] } | null {
  if (merged.stages.length === 0 || merged.messages.some((m) => !CONTENT_MESSAGES.has(m.type))) return null;
  const stagesOf = new Map<string, Set<number>>();
  for (const { stage, entry } of merged.stages) {
    if (!REGULAR_FILE.test(entry.mode)) return null;
    const stages = stagesOf.get(entry.path) ?? new Set<number>();
    stages.add(stage);
    stagesOf.set(entry.path, stages);
  }
  for (const stages of stagesOf.values()) if (!stages.has(2) || !stages.has(3)) return null;
  return { paths: [...stagesOf.keys()] };
}
