import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { GOALS } from '../../config/goals.js';
import { SplintercatError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import type * as ImergeCore from '../../imerge/index.js';
import type { AutofillEvent, IncrementalMerge } from '../../imerge/index.js';
import type * as ImergeWorkingTree from '../../imerge/present-conflict.js';
import { globalOptions, printResult } from '../context.js';
import { cellId } from '../../imerge/cell.js';
import { shortOid } from '../../util/short-oid.js';

/** The engine, loaded when an imerge command runs rather than at start-up. */
type Engine = typeof ImergeCore & typeof ImergeWorkingTree;

type StartOpts = {
  name?: string;
  goal: string;
  branch?: string;
  firstParent?: boolean;
  manual?: boolean;
  jobs: string;
};

const jobsOption = (): string => String(Math.max(1, availableParallelism()));

/** `imerge start|merge|init`: start a merge of `upstreamTip` and, unless `init`, autofill it and present a conflict. */
async function startMerge(git: Git, engine: Engine, verb: string, upstreamTip: string, opts: StartOpts): Promise<void> {
  const autofill = verb !== 'init';
  // The working tree must be clean, as git-imerge requires; the check runs while the merge
  // starts and autofills (on a large tree it is the slowest command of a start: git re-reads
  // the files whose stat data it cannot trust), and a dirty tree leaves nothing behind.
  const clean = git.assertClean('proceed');
  clean.catch(() => undefined); // awaited below, on every path
  let branch = opts.branch;
  if (verb === 'merge' && branch === undefined) branch = (await git.currentBranch()) ?? opts.name;
  const name = opts.name ?? upstreamTip;
  let im: IncrementalMerge;
  try {
    if (!autofill) await clean;
    const { goal, firstParent, manual } = opts;
    im = await engine.IncrementalMerge.start(git, { name, goal, tip2: upstreamTip, branch, firstParent, manual });
  } catch (error) {
    await clean;
    if (verb === 'merge' && (error as { code?: string }).code === 'imerge_nothing_to_do') {
      printResult('Already up-to-date.');
      return;
    }
    throw error;
  }
  if (autofill) await autofillAndPresent(git, im, Number(opts.jobs), engine, clean);
}

function registerStartCommands(imerge: Command): void {
  const startLike = (verb: string, description: string, nameRequired: boolean): void => {
    const c = imerge.command(verb).description(description);
    if (nameRequired) c.requiredOption('--name <name>', 'name of the incremental merge');
    else c.option('--name <name>', 'name of the incremental merge (default: BRANCH)');
    c.option('--goal <goal>', `goal: ${GOALS.join(', ')}`, 'merge')
      .option('--branch <branch>', 'branch to store the result in')
      .option('--first-parent', 'follow first parents of merges on each branch')
      .option('--manual', 'do not autofill')
      .option('-j, --jobs <n>', 'concurrent merges', jobsOption())
      .argument('<branch>', 'the branch to merge in (upstream)')
      .action(async (upstreamTip: string, opts: StartOpts, cmd: Command) => {
        await withGit(cmd, (git, engine) => startMerge(git, engine, verb, upstreamTip, opts));
      });
  };
  startLike('start', 'start an incremental merge of BRANCH into the current branch and autofill it', true);
  startLike('merge', 'start an incremental merge of BRANCH into the current branch, storing the result there', false);
  startLike('init', 'set up an incremental merge of BRANCH without merging anything', true);
}

/** `splintercat imerge ...`: the engine alone, with git-imerge's verbs, flags and outputs. */
export function registerImerge(program: Command): Command {
  const imerge = program.command('imerge').description('the incremental-merge engine alone, git-imerge compatible');
  registerStartCommands(imerge);
  registerStepCommands(imerge);
  registerResultCommands(imerge);
  return imerge;
}

/** `imerge autofill`, `record` and `continue`: the steps of a merge under way. */
function registerStepCommands(imerge: Command): void {
  imerge
    .command('autofill')
    .description('autofill as far as possible without touching the working tree; fails at a conflict')
    .option('--name <name>', 'name of the incremental merge')
    .option('-j, --jobs <n>', 'concurrent merges', jobsOption())
    .action(async (opts: { name?: string; jobs: string }, cmd: Command) => {
      await withGit(cmd, async (git, { IncrementalMerge }) => {
        await git.assertClean('proceed');
        const im = await IncrementalMerge.load(git, opts.name);
        const r = await im.autofill({ jobs: Number(opts.jobs), onProgress: printProgress });
        if (!r.complete) {
          const [i, j] = r.next as [number, number];
          throw new SplintercatError('imerge_conflict', {
            what: `Conflict; suggest manual merge of ${cellId({ i1: i, i2: j })}`,
            fix: `Run: splintercat imerge continue --name ${im.name} (it prepares the merge in the working tree)`,
          });
        }
        process.stderr.write('Merge is complete!\n');
      });
    });

  imerge
    .command('record')
    .description('record the merge committed on the scratch branch and autofill without presenting a conflict')
    .option('--name <name>', 'name of the incremental merge')
    .option('--edit', 'edit the commit message of the manual merge')
    .option('--no-edit', 'do not edit the commit message (default)')
    .action(async (opts: { name?: string; edit?: boolean }, cmd: Command) => {
      await withGit(cmd, async (git, { IncrementalMerge, incorporateUserMerge, scratchRef }) => {
        const im = await IncrementalMerge.load(git, opts.name);
        if ((await incorporateUserMerge(git, im, opts.edit === true, toStderr)) === null) {
          throw new SplintercatError('imerge_no_manual_merge', {
            what: `Reference ${scratchRef(im.name)} does not exist or is not checked out`,
            fix: 'Commit your merge on the scratch branch that `splintercat imerge continue` prepared, then run record',
          });
        }
        const r = await im.autofill({ onProgress: printProgress });
        if (r.complete) process.stderr.write('Merge is complete!\n');
      });
    });
}

/** `imerge simplify`, `finish`, `diagram`, `list` and `remove`: what a merge made, and its end. */
function registerResultCommands(imerge: Command): void {
  resultOptions(
    imerge
      .command('simplify')
      .description('write the result of a complete merge to its branch, keeping the merge state'),
  ).action(async (opts: ResultOptions, cmd: Command) => {
    await withGit(cmd, (git, engine) => writeResult(git, opts, { finish: false }, engine));
  });

  imerge
    .command('continue')
    .description('record the merge committed on the scratch branch and autofill on')
    .option('--name <name>', 'name of the incremental merge')
    .option('--edit', 'edit the commit message of the manual merge')
    .option('--no-edit', 'do not edit the commit message (default)')
    .option('-j, --jobs <n>', 'concurrent merges', jobsOption())
    .action(async (opts: { name?: string; edit?: boolean; jobs: string }, cmd: Command) => {
      await withGit(cmd, async (git, engine) => {
        const im = await engine.IncrementalMerge.load(git, opts.name);
        await engine.incorporateUserMerge(git, im, opts.edit === true, toStderr);
        await autofillAndPresent(git, im, Number(opts.jobs), engine);
      });
    });

  resultOptions(
    imerge
      .command('finish')
      .description(
        "write the goal's result (merge commit, rebased chain, border merge or full grid) to the branch and remove the merge state",
      ),
  ).action(async (opts: ResultOptions, cmd: Command) => {
    await withGit(cmd, (git, engine) => writeResult(git, opts, { finish: true }, engine));
  });

  imerge
    .command('diagram')
    .description('draw the merge grid (git-imerge characters)')
    .option('--name <name>', 'name of the incremental merge')
    .action(async (opts: { name?: string }, cmd: Command) => {
      await withGit(cmd, async (git, { IncrementalMerge }) => {
        process.stdout.write((await IncrementalMerge.load(git, opts.name)).diagram());
      });
    });

  imerge
    .command('list')
    .description('list the incremental merges; * marks the default')
    .action(async (_opts: unknown, cmd: Command) => {
      await withGit(cmd, async (git, { listImerges }) => {
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
      await withGit(cmd, async (git, { chooseImergeName, leaveScratch, removeImerge }) => {
        const name = await chooseImergeName(git, opts.name);
        await leaveScratch(git, name);
        await removeImerge(git, name);
      });
    });
}

function knownCells(im: IncrementalMerge): number {
  let n = 0;
  for (let i = 1; i < im.grid.len1; i++) for (let j = 1; j < im.grid.len2; j++) if (im.cellCommit(i, j) !== null) n++;
  return n;
}

/** As git-imerge: reset the branch if it is checked out, else check it out. */
async function checkoutResult(git: Git, branch: string, commit: string): Promise<void> {
  if ((await git.currentBranch()) === branch) await git.run(['reset', '-q', '--hard', commit]);
  else await git.run(['checkout', '-q', branch]);
}

function printProgress(e: AutofillEvent): void {
  const line = progressLine(e);
  if (line) process.stderr.write(`${line}\n`);
}

async function withGit(cmd: Command, fn: (git: Git, engine: Engine) => Promise<void>): Promise<void> {
  const [{ Git }, core, workingTree] = await Promise.all([
    import('../../git/index.js'),
    import('../../imerge/index.js'),
    import('../../imerge/present-conflict.js'),
  ]);
  const git = new Git({ cwd: globalOptions(cmd).cwd });
  try {
    await fn(git, { ...core, ...workingTree });
  } finally {
    git.close();
  }
}

function progressLine(e: AutofillEvent): string | null {
  const cell = cellId(e);
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

/**
 * Autofill, then present the blocker in the working tree (exit 0) or say the merge is complete.
 * `clean`, when given, is the check of the working tree that `start` runs alongside the autofill:
 * when it fails, the autofill stops and the merge just started is removed.
 */
async function autofillAndPresent(
  git: Git,
  im: IncrementalMerge,
  jobs: number,
  { presentConflict }: Engine,
  clean?: Promise<void>,
): Promise<void> {
  const started = Date.now();
  let merges = 0;
  let lastReport = started;
  const total = (im.grid.len1 - 1) * (im.grid.len2 - 1);
  const stop = new AbortController();
  const dirty = clean?.then(
    () => null,
    (error: unknown) => {
      stop.abort(error);
      return error;
    },
  );
  const filling = im.autofill({
    signal: stop.signal,
    jobs: Number.isFinite(jobs) && jobs > 0 ? jobs : 1,
    onProgress: (e) => {
      if (e.kind === 'merge' || e.kind === 'probe') merges++;
      const line = progressLine(e);
      if (line) process.stderr.write(`${line}\n`);
      const now = Date.now();
      // A summary every few seconds on long autofills: cells known, merges per second.
      if (now - lastReport >= 3000) {
        lastReport = now;
        const rate = merges / ((now - started) / 1000);
        process.stderr.write(
          `progress: ${knownCells(im)}/${total} cells known, ${merges} merges, ${rate.toFixed(1)} merges/s\n`,
        );
      }
    },
  });
  const [filled, dirtyError] = await Promise.all([filling.catch((error: unknown) => ({ error })), dirty]);
  if (dirtyError) {
    await im.remove();
    throw dirtyError;
  }
  if ('error' in filled) throw filled.error;
  const result = filled;
  const secs = (Date.now() - started) / 1000;
  if (merges > 0)
    process.stderr.write(
      `${merges} merges in ${secs.toFixed(1)} s (${(merges / Math.max(secs, 0.001)).toFixed(1)}/s).\n`,
    );
  if (result.complete) {
    process.stderr.write('Merge is complete!\n');
    return;
  }
  const [i, j] = result.next as [number, number];
  await git.assertClean(
    `present the conflict at ${cellId({ i1: i, i2: j })} (the merge state is saved; run \`splintercat imerge continue\` when clean)`,
  );
  for (const { stream, text } of await presentConflict(git, im, i, j)) process[stream].write(text);
}

const toStderr = (text: string): void => {
  process.stderr.write(text);
};

interface ResultOptions {
  name?: string;
  goal?: string;
  branch?: string;
  force?: boolean;
}

/** The options of simplify and finish. */
function resultOptions(command: Command): Command {
  return command
    .option('--name <name>', 'name of the incremental merge')
    .option('--goal <goal>', 'change the goal first')
    .option('--branch <branch>', 'branch to store the result in')
    .option('--force', 'overwrite the branch even if that discards history');
}

/** simplify and finish: write the goal's result to the branch and check it out; finish also leaves the scratch branch first and removes the merge state after. */
async function writeResult(
  git: Git,
  opts: ResultOptions,
  { finish }: { finish: boolean },
  { IncrementalMerge, leaveScratch }: Engine,
): Promise<void> {
  await git.assertClean('proceed');
  const im = await IncrementalMerge.load(git, opts.name);
  const branch = opts.branch ?? im.branch;
  if (finish) await leaveScratch(git, im.name);
  const commit = await im.simplify({ branch, force: opts.force, goal: opts.goal });
  await checkoutResult(git, branch, commit);
  if (!finish) return;
  await im.remove();
  process.stderr.write(`Merge ${im.name} finished: ${branch} is at ${shortOid(commit)}.\n`);
}
