import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { Git } from '../../git/index.js';
import { IncrementalMerge, chooseImergeName, listImerges, removeImerge, type AutofillEvent } from '../../imerge/index.js';
import { globalOptions, printResult } from '../context.js';
import { incorporateUserMerge, leaveScratch, presentConflict } from './imerge/working-tree.js';

/** `splintercat imerge ...`: the engine alone, with git-imerge's verbs, flags and outputs. */
export function registerImerge(program: Command): Command {
  const imerge = program.command('imerge').description('the incremental-merge engine alone, git-imerge compatible');

  imerge
    .command('start')
    .description('start an incremental merge of BRANCH into the current branch and autofill it')
    .requiredOption('--name <name>', 'name of the incremental merge')
    .option('--goal <goal>', 'goal: merge, rebase or full (finish implements these three)', 'merge')
    .option('--branch <branch>', 'branch to store the result in (default: the name)')
    .option('--first-parent', 'follow first parents of merges on each branch')
    .option('--manual', 'do not autofill')
    .option('-j, --jobs <n>', 'concurrent merges', String(Math.max(1, availableParallelism())))
    .argument('<branch>', 'the branch to merge in (tip2)')
    .action(async (tip2: string, opts: { name: string; goal: string; branch?: string; firstParent?: boolean; manual?: boolean; jobs: string }, cmd: Command) => {
      await withGit(cmd, async (git) => {
        await git.assertClean('proceed');
        const im = await IncrementalMerge.start(git, { name: opts.name, goal: opts.goal, tip2, branch: opts.branch, firstParent: opts.firstParent, manual: opts.manual });
        await autofillAndPresent(git, im, Number(opts.jobs));
      });
    });

  imerge
    .command('continue')
    .description('record the merge committed on the scratch branch and autofill on')
    .option('--name <name>', 'name of the incremental merge')
    .option('--edit', 'edit the commit message of the manual merge')
    .option('--no-edit', 'do not edit the commit message (default)')
    .option('-j, --jobs <n>', 'concurrent merges', String(Math.max(1, availableParallelism())))
    .action(async (opts: { name?: string; edit?: boolean; jobs: string }, cmd: Command) => {
      await withGit(cmd, async (git) => {
        const im = await IncrementalMerge.load(git, opts.name);
        await incorporateUserMerge(git, im, opts.edit === true);
        await autofillAndPresent(git, im, Number(opts.jobs));
      });
    });

  imerge
    .command('finish')
    .description('simplify a complete merge into one merge commit on its branch and remove the merge state')
    .option('--name <name>', 'name of the incremental merge')
    .option('--branch <branch>', 'branch to store the result in')
    .option('--force', 'overwrite the branch even if not a fast-forward')
    .action(async (opts: { name?: string; branch?: string; force?: boolean }, cmd: Command) => {
      await withGit(cmd, async (git) => {
        await git.assertClean('proceed');
        const im = await IncrementalMerge.load(git, opts.name);
        const branch = opts.branch ?? im.branch;
        await leaveScratch(git, im.name);
        const commit = await im.finish({ branch, force: opts.force });
        if ((await git.currentBranch()) === branch) await git.run(['reset', '-q', '--hard', commit]);
        else await git.run(['checkout', '-q', branch]);
        process.stderr.write(`Merge ${im.name} finished: ${branch} is at ${commit.slice(0, 12)}.\n`);
      });
    });

  imerge
    .command('diagram')
    .description('draw the merge grid (git-imerge characters)')
    .option('--name <name>', 'name of the incremental merge')
    .action(async (opts: { name?: string }, cmd: Command) => {
      await withGit(cmd, async (git) => {
        process.stdout.write((await IncrementalMerge.load(git, opts.name)).diagram());
      });
    });

  imerge
    .command('list')
    .description('list the incremental merges; * marks the default')
    .action(async (_opts: unknown, cmd: Command) => {
      await withGit(cmd, async (git) => {
        const names = await listImerges(git);
        let dflt = await git.configGet('imerge.default');
        if (!dflt && names.length === 1) dflt = names[0] as string;
        if (names.length > 0) printResult(names.map((n) => `${n === dflt ? '*' : ' '} ${n}`).join('\n'));
      });
    });

  imerge
    .command('remove')
    .description('remove an incremental merge: its refs, its scratch branch and the default setting')
    .option('--name <name>', 'name of the incremental merge')
    .action(async (opts: { name?: string }, cmd: Command) => {
      await withGit(cmd, async (git) => {
        const name = await chooseImergeName(git, opts.name);
        await leaveScratch(git, name);
        await removeImerge(git, name);
      });
    });

  return imerge;
}

async function withGit(cmd: Command, fn: (git: Git) => Promise<void>): Promise<void> {
  const git = new Git({ cwd: globalOptions(cmd).cwd });
  try {
    await fn(git);
  } finally {
    git.close();
  }
}

function progressLine(e: AutofillEvent): string | null {
  const cell = `${e.i1}-${e.i2}`;
  switch (e.kind) {
    case 'probe':
      return `Attempting automerge of ${cell}...${e.ok ? 'success' : 'failure'}.`;
    case 'merge':
      return `Autofilling ${cell}...success.`;
    case 'unexpected-conflict':
      return `Autofilling ${cell}...unexpected conflict.  Backtracking...`;
    case 'conflict':
      return `Attempting to merge ${cell}...conflict.`;
    default:
      return null;
  }
}

/** Autofill, then present the blocker in the working tree (exit 0) or say the merge is complete. */
async function autofillAndPresent(git: Git, im: IncrementalMerge, jobs: number): Promise<void> {
  const started = Date.now();
  let merges = 0;
  const result = await im.autofill({
    jobs: Number.isFinite(jobs) && jobs > 0 ? jobs : 1,
    onProgress: (e) => {
      if (e.kind === 'merge' || e.kind === 'probe') merges++;
      const line = progressLine(e);
      if (line) process.stderr.write(`${line}\n`);
    },
  });
  const secs = (Date.now() - started) / 1000;
  if (merges > 0) process.stderr.write(`${merges} merges in ${secs.toFixed(1)} s (${(merges / Math.max(secs, 0.001)).toFixed(1)}/s).\n`);
  if (result.complete) {
    process.stderr.write('Merge is complete!\n');
    return;
  }
  const [i1, i2] = result.next as [number, number];
  await git.assertClean(`present the conflict at ${i1}-${i2} (the merge state is saved; run \`splintercat imerge continue\` when clean)`);
  await presentConflict(git, im, i1, i2);
}
