import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { GOALS, strategyNames, type Config } from '../../config/index.js';
import { SplintercatError, UsageError } from '../../errors/index.js';
import { Git } from '../../git/index.js';
import { listImerges } from '../../imerge/index.js';
import { RunStore } from '../../store/index.js';
import { driveRun } from '../../workflow/merge-run.js';
import type { NodeName } from '../../workflow/nodes/common.js';
import type { RunOutcome } from '../../workflow/machine/runner.js';
import { createRun, reopenRun } from '../../workflow/setup.js';
import type { RunState } from '../../store/run-state.js';
import { sumUsage } from '../../store/usage.js';
import { createCliLogger, globalOptions, loadCliConfig, printResult, type GlobalOptions } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { approvingChecks, Prompter, terminalApprover } from '../interactive.js';
import type { Logger } from '../../log/logger.js';
import { createRunDeps } from '../../workflow/run-deps.js';
import type { WorkflowContext } from '../../workflow/ports.js';

export interface MergeOptions {
  into?: string;
  name?: string;
  goal?: string;
  strategy?: string;
  resolver?: string;
  firstParent?: boolean;
  interactive?: boolean;
}

/** `splintercat merge SOURCE` and `splintercat continue`. */
export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description('merge SOURCE into the target branch: resolve, check, recover, finish')
    .argument('<source>', 'what to merge from, e.g. upstream/main (default: source.ref)')
    .option('--into <branch>', 'the branch that receives the merge (default: target.branch, else the current branch)')
    .option('--name <name>', 'name of this merge (default: imerge.name)')
    .addOption(new Option('--goal <goal>', 'what to produce').choices([...GOALS]))
    .addOption(new Option('--strategy <strategy>', 'how often to check').choices(['auto', ...strategyNames]))
    .addOption(new Option('--resolver <mode>', 'auto = ladder then model; llm; manual = stop for a human').choices(['auto', 'llm', 'manual']))
    .option('--no-first-parent', 'follow every parent on each axis instead of first parents')
    .option('--interactive', 'show each check command and each resolution and ask before running or recording it')
    .action(async (source: string, opts: MergeOptions, cmd: Command) => {
      const global = globalOptions(cmd);
      const { config } = loadCliConfig(global);
      process.exitCode = await startMerge(global, config, source, opts);
    });

  program
    .command('continue')
    .description('resume a merge (after an interruption or a manual edit)')
    .option('--name <name>', 'the merge to resume (default: imerge.name)')
    .option('--interactive', 'show each check command and each resolution and ask before running or recording it')
    .action(async (opts: { name?: string; interactive?: boolean }, cmd: Command) => {
      const global = globalOptions(cmd);
      const { config } = loadCliConfig(global);
      const git = new Git({ cwd: config.target.workdir });
      const cleanups: Array<() => void> = [];
      try {
        const store = await RunStore.forRepo(git);
        const name = opts.name ?? onlyRun(store, config);
        const { run, state } = reopenRun(store, name);
        try {
          if (state.status === 'done') {
            printResult(`The merge '${name}' is already finished: ${state.finalCommit ?? ''}`);
            return;
          }
          const resumed: RunState = state.status === 'running' ? state : { ...state, status: 'running', statusReason: null };
          const logs = createCliLogger(global, config);
          cleanups.push(logs.close);
          const session = runSession(opts.interactive);
          cleanups.push(session.close);
          const ctx = await runDeps(config, git, name, logs.logger, session.interactive);
          process.exitCode = await drive(run, resumed, ctx, session.controller);
        } finally {
          run.close();
        }
      } finally {
        for (const cleanup of cleanups) cleanup();
        git.close();
      }
    });
}

/** Start a merge run of `source` as the configuration and options say; returns the exit code. */
export async function startMerge(global: GlobalOptions, config: Config, source: string, opts: MergeOptions): Promise<number> {
  applyOptions(config, opts);
  const git = new Git({ cwd: config.target.workdir });
  const cleanups: Array<() => void> = [];
  try {
    await git.assertClean('start a merge');
    const branch = opts.into ?? (config.target.branch || (await git.currentBranch()));
    if (!branch) {
      throw new UsageError('merge_no_branch', { what: 'HEAD is detached and no target branch is given', fix: 'Pass --into BRANCH or set target.branch in splintercat.yaml' });
    }
    const name = opts.name ?? config.imerge.name;
    const sourceOid = await git.resolve(`${source}^{commit}`);
    const targetOid = await git.resolve(`refs/heads/${branch}`);
    const store = await RunStore.forRepo(git);
    if (store.exists(name) || (await listImerges(git)).includes(name)) {
      throw new UsageError('merge_exists', {
        what: `A merge named '${name}' already exists in this repository`,
        why: 'Its state (refs/imerge or .git/splintercat) is still there',
        fix: ['Resume it: splintercat continue', `Or drop it: splintercat abort --name ${name}`, 'Or choose another name with --name'],
      });
    }
    excludeLogs(await git.gitDir());
    const logs = createCliLogger(global, config);
    cleanups.push(logs.close);
    const session = runSession(opts.interactive);
    cleanups.push(session.close);
    const ctx = await runDeps(config, git, name, logs.logger, session.interactive);
    const problems = ctx.preflight(config.check.workflow.filter((n) => n in config.check.commands));
    if (problems.length > 0) {
      throw new UsageError('check_preflight', {
        what: 'A configured check cannot run, so the merge was not started',
        why: problems.map((p) => `${p.name}: ${p.message}`).join('\n'),
        fix: 'Fix check.commands in splintercat.yaml (or install the missing program), then run the merge again',
      });
    }
    const { run, state } = createRun(store, { name, source: { ref: source, oid: sourceOid }, target: { branch, originalOid: targetOid }, workdir: config.target.workdir, goal: config.imerge.goal as RunState['goal'] });
    try {
      return await drive(run, state, ctx, session.controller);
    } finally {
      run.close();
    }
  } finally {
    for (const cleanup of cleanups) cleanup();
    git.close();
  }
}

/** The run to act on when no --name is given: imerge.name if it exists, else the only run. */
export function onlyRun(store: RunStore, config: Config): string {
  if (store.exists(config.imerge.name)) return config.imerge.name;
  const runs = store.list().map((r) => r.name);
  if (runs.length === 1) return runs[0] as string;
  throw new UsageError('run_name_needed', {
    what: runs.length === 0 ? 'There is no splintercat merge in this repository' : 'Several merges exist; say which with --name',
    fix: runs.length === 0 ? 'Start one: splintercat merge SOURCE' : `Existing: ${runs.join(', ')}`,
  });
}

function applyOptions(config: Config, opts: MergeOptions): void {
  if (opts.goal) config.imerge.goal = opts.goal as Config['imerge']['goal'];
  if (opts.strategy) config.merge.strategy = opts.strategy as Config['merge']['strategy'];
  if (opts.resolver) config.merge.resolver = opts.resolver as Config['merge']['resolver'];
  if (opts.firstParent === false) config.imerge.first_parent = false;
  if (config.imerge.goal !== 'merge') {
    throw new UsageError('merge_goal', {
      what: `splintercat merge finishes with goal 'merge' only (got '${config.imerge.goal}')`,
      fix: ['Use --goal merge', `For other goals use the engine directly: splintercat imerge start --goal ${config.imerge.goal} ...`],
    });
  }
}

/** `--interactive`: ask on this prompter; `stop` halts the run at its next safe point. */
interface InteractiveOptions {
  prompter: Prompter;
  stop: () => void;
}

/** The run's dependencies, with the terminal's questions in --interactive mode. */
function runDeps(config: Config, git: Git, name: string, log: Logger, interactive: InteractiveOptions | undefined): Promise<WorkflowContext> {
  return createRunDeps(config, git, name, {
    log,
    env: process.env,
    ...(interactive
      ? { interactive: { checks: (inner) => approvingChecks(inner, interactive.prompter, config.check.commands, interactive.stop), approver: terminalApprover(interactive.prompter) } }
      : {}),
  });
}

/** What stops a run at its next safe point (Ctrl-C, a declined command), and the prompter of --interactive. */
function runSession(interactive: boolean | undefined): { controller: AbortController; interactive?: InteractiveOptions; close: () => void } {
  const controller = new AbortController();
  if (!interactive) return { controller, close: () => undefined };
  const prompter = new Prompter(process.stdin, process.stderr);
  return { controller, interactive: { prompter, stop: () => controller.abort() }, close: () => prompter.close() };
}

/** Run the machine with Ctrl-C stopping it at the next safe point; print the outcome; return the exit code. */
async function drive(run: Parameters<typeof driveRun>[0], state: RunState, ctx: Parameters<typeof driveRun>[2], controller: AbortController): Promise<number> {
  const onSigint = (): void => {
    process.stderr.write('\nStopping at the next safe point (Ctrl-C again to force)...\n');
    controller.abort();
    process.once('SIGINT', () => process.exit(130));
  };
  process.once('SIGINT', onSigint);
  try {
    const outcome = await driveRun(run, state, ctx, { signal: controller.signal });
    return report(outcome);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

function report(outcome: RunOutcome<RunState, NodeName>): number {
  const s = outcome.state;
  switch (outcome.kind) {
    case 'done': {
      const rungs = new Map<string, number>();
      for (const h of s.conflicts.flatMap((c) => c.files.flatMap((f) => f.hunks))) rungs.set(h.rung ?? 'open', (rungs.get(h.rung ?? 'open') ?? 0) + 1);
      const cost = sumUsage([s.usage.resolver, s.usage.summarizer, s.usage.planner]).costUsd;
      printResult(
        [
          `Merged ${s.source.ref} into ${s.target.branch}: ${s.finalCommit}`,
          `  conflicts: ${s.conflicts.length} (hunks by rung: ${[...rungs].map(([r, n]) => `${r} ${n}`).join(', ') || 'none'})`,
          `  checks run: ${s.checks.length}, attempts: ${s.attempts.length}, model cost: $${cost.toFixed(4)}`,
        ].join('\n'),
      );
      return ExitCode.Done;
    }
    case 'needs_human': {
      const h = s.human;
      process.stderr.write(
        [`The merge needs a human: ${outcome.reason}`, '', 'Files to edit:', ...(h?.files ?? []).map((f) => `  ${f}`), '', 'Then:', ...(h?.commands ?? []).map((c) => `  ${c}`), ''].join('\n'),
      );
      return ExitCode.NeedsHuman;
    }
    case 'stopped':
      process.stderr.write(`Stopped before '${outcome.resumeAt}'. Resume with: ${outcome.resume}\n`);
      return ExitCode.Failed;
    case 'failed':
      throw new SplintercatError('merge_failed', {
        what: `The merge '${s.name}' failed`,
        why: outcome.reason,
        fix: outcome.retryable ? [`Fix the cause, then: ${outcome.resume}`] : ['Inspect it: splintercat status', `Drop it: splintercat abort --name ${s.name}`],
      });
  }
}

/** Keep splintercat's logs out of `git status` (they live in the working tree by default). */
function excludeLogs(gitDir: string): void {
  mkdirSync(join(gitDir, 'info'), { recursive: true });
  const exclude = join(gitDir, 'info', 'exclude');
  const text = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
  if (!text.split('\n').includes('.splintercat/')) appendFileSync(exclude, `${text === '' || text.endsWith('\n') ? '' : '\n'}.splintercat/\n`);
}
