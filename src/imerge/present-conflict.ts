import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SplintercatError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import { scratchRef, type IncrementalMerge } from './index.js';
import { cellId } from './cell.js';
import { startMergeDirectly } from './direct-merge-start.js';

/**
 * Where the engine touches the user's working tree, exactly as git-imerge's
 * request_user_merge / incorporate_user_merge do. Nothing here prints: the CLI shows
 * what these functions return or report.
 */

/** What git-imerge shows at a conflict, in order: results for stdout, commentary for stderr. */
export type ImergeOutput = Array<{ stream: 'stdout' | 'stderr'; text: string }>;

/** Check out the scratch branch at (i1, i2-1) and start `git merge --no-commit` of (i1-1, i2); returns what to show. */
export async function presentConflict(git: Git, im: IncrementalMerge, i1: number, i2: number): Promise<ImergeOutput> {
  const out: ImergeOutput = [];
  const stdout = (text: string): number => out.push({ stream: 'stdout', text });
  const stderr = (text: string): number => out.push({ stream: 'stderr', text });
  const above = im.cellCommit(i1, i2 - 1) as string;
  const left = im.cellCommit(i1 - 1, i2) as string;
  const message = `imerge '${im.name}': manual merge ${cellId({ i1, i2 })}`;
  await git.run([
    'update-ref',
    '-m',
    `imerge '${im.name}': Prepare merge ${cellId({ i1, i2 })}`,
    scratchRef(im.name),
    above,
  ]);
  // Every cell of the grid has a ref of the merge (refs/imerge/NAME/auto or manual): what checkout checks.
  const direct = await startMergeDirectly(git, `imerge/${im.name}`, above, left, message, (commit) =>
    isKnown(im, commit),
  );
  if (direct !== null) {
    stderr(direct.checkoutStderr);
    stdout(direct.mergeStdout);
  } else {
    const co = await git.run(['checkout', `imerge/${im.name}`]);
    stderr(co.stderr);
    const merge = await git.run(['merge', '--no-commit', '-m', message, left], { okExitCodes: [0, 1, 2] });
    stdout(merge.stdout);
    stderr(merge.stderr);
  }
  // Both commits from one `git log` (-z ends each with a NUL): each part is what `git log --no-walk` prints of it alone.
  const [first = '', second = ''] = (
    await git.run([
      '--no-pager',
      'log',
      '--no-walk=unsorted',
      '-z',
      im.cellCommit(i1, 0) as string,
      im.cellCommit(0, i2) as string,
    ])
  ).stdout.split('\0');
  stderr('\nOriginal first commit:\n');
  stdout(first);
  stderr('\nOriginal second commit:\n');
  stdout(second);
  stderr(
    `\nThere was a conflict merging commit ${cellId({ i1, i2 })}, shown above.\n` +
      'Please resolve the conflict, commit the result, then type\n\n    splintercat imerge continue\n',
  );
  return out;
}

/**
 * If the user has merged on the scratch branch, commit (when staged) and record it
 * (git-imerge's incorporate_user_merge). Returns the recorded cell or null when there is nothing;
 * `note` receives git-imerge's remarks on what it did.
 */
export async function incorporateUserMerge(
  git: Git,
  im: IncrementalMerge,
  edit: boolean,
  note: (text: string) => void = () => undefined,
): Promise<[number, number] | null> {
  const ref = scratchRef(im.name);
  const commit = await git.revParse(`${ref}^{commit}`);
  if (commit === null) return null;
  const head = (await git.run(['symbolic-ref', '--quiet', 'HEAD'], { okExitCodes: [0, 1] })).stdout.trim();
  if (head === '') return null;
  if (head !== ref) {
    if (!isKnown(im, commit)) {
      throw new SplintercatError('imerge_scratch_not_checked_out', {
        what: `The scratch reference, ${ref}, already exists but is not checked out`,
        fix: [
          `If it points to a merge you want to use: git checkout imerge/${im.name}, then continue again`,
          `If it is unneeded: git update-ref -d ${ref}, then continue`,
        ],
      });
    }
    await git.run(['update-ref', '-d', ref]);
    note(`${ref} did not point to a new merge; it has been deleted.\n`);
    return null;
  }
  let recordedCommit = commit;
  const gitDir = await git.text(['rev-parse', '--absolute-git-dir']);
  const mergeHead = join(gitDir, 'MERGE_HEAD');
  if (existsSync(mergeHead) && readFileSync(mergeHead, 'utf8').trim().split('\n').length === 1) {
    await git.run(['update-index', '-q', '--refresh'], { okExitCodes: [0, 1] });
    const unstaged = await git.run(['diff', '--name-only'], {});
    if (unstaged.stdout.trim() !== '') {
      throw new SplintercatError('imerge_unstaged', {
        what: 'Cannot proceed: You have unstaged changes.',
        why: `Unstaged or unresolved files:\n${unstaged.stdout
          .trimEnd()
          .split('\n')
          .map((f) => `  ${f}`)
          .join('\n')}`,
        fix: ['Resolve the conflicts and `git add` the files', 'Then run: splintercat imerge continue'],
      });
    }
    await git.run(['commit', '--no-verify', edit ? '--edit' : '--no-edit']);
    recordedCommit = await git.resolve('HEAD');
  }
  await git.assertClean('proceed');
  const cell = await im.recordCommit(recordedCommit);
  await git.run(['update-ref', '--no-deref', '-m', `Detach HEAD from ${ref}`, 'HEAD', 'HEAD^0']);
  await git.run(['update-ref', '-d', ref]);
  note(`Merge has been recorded for merge ${cellId({ i1: cell[0], i2: cell[1] })}.\n`);
  return cell;
}

function isKnown(im: IncrementalMerge, commit: string): boolean {
  for (let i1 = 0; i1 < im.grid.len1; i1++)
    for (let i2 = 0; i2 < im.grid.len2; i2++) if (im.cellCommit(i1, i2) === commit) return true;
  return false;
}

/** Leave the scratch branch (abort a merge in progress) before the refs are deleted. */
export async function leaveScratch(git: Git, name: string): Promise<void> {
  const head = (await git.run(['symbolic-ref', '--quiet', 'HEAD'], { okExitCodes: [0, 1] })).stdout.trim();
  if (head !== scratchRef(name)) return;
  await git.run(['reset', '--merge'], { okExitCodes: [0, 1, 128] });
  await git.run(['update-ref', '--no-deref', '-m', `Detach HEAD from ${scratchRef(name)}`, 'HEAD', 'HEAD^0']);
}
