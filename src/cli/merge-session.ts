import type { Config, StoredConfig } from '../config/index.js';
import { RESOLVER_MODES, strategyNames } from '../config/goals.js';
import { SplintercatError, UsageError } from '../errors/index.js';
import { Git } from '../git/index.js';
import { handoffLines } from '../workflow/handoff/index.js';
import { terminalText } from '../util/safe-print.js';
import { finalValidation } from '../report/validation.js';
import { sumUsage } from '../store/usage.js';
import type { MergeFlags } from '../workflow/config-for.js';
import type { DriveOptions, DriveOutcome, StartSpec } from '../workflow/lifecycle.js';
import { printResult, type GlobalOptions } from './context.js';
import { createCliLogger } from './logger.js';
import { ExitCode } from './exit-codes.js';
import { approvingChecks, Prompter, terminalApprover } from './interactive.js';
import { ProgressDisplay } from './progress-display.js';

/**
 * What `merge`, `continue` and `demo` do once their arguments are parsed: drive the run with the
 * terminal's log, Ctrl-C and questions, and turn its outcome into output and an exit code. Apart
 * from the commands' definitions, so `merge --help` loads neither the logger nor the workflow.
 */

export interface MergeOptions {
  into?: string;
  name?: string;
  goal?: string;
  strategy?: string;
  resolver?: string;
  firstParent?: boolean;
  interactive?: boolean;
  restart?: boolean;
  remote?: string;
}

/** Start a merge run of `upstream` as the configuration and options say; returns the exit code. */
export async function startMerge(
  global: GlobalOptions,
  config: Config,
  upstream: string,
  opts: MergeOptions,
  stored: StoredConfig | null = null,
): Promise<number> {
  const { startRun } = await import('../workflow/lifecycle.js');
  const git = new Git({ cwd: config.target.workdir });
  try {
    const spec: StartSpec = {
      upstream,
      ...(opts.into !== undefined ? { into: opts.into } : {}),
      ...(opts.name !== undefined ? { name: opts.name } : {}),
      ...(opts.restart ? { restart: true } : {}),
      ...(opts.remote !== undefined ? { remote: opts.remote } : {}),
    };
    const session = openSession(global, config, opts.interactive);
    try {
      return report(await startRun(config, git, spec, session.options, stored));
    } finally {
      session.close();
    }
  } finally {
    git.close();
  }
}

/** The options of `merge` that set configuration keys, typed (the configuration resolver applies them). */
export function mergeFlags(opts: MergeOptions): MergeFlags {
  // The workflow finishes with a merge commit only; commander has refused any other goal.
  if (opts.goal !== undefined) choice(['merge'] as const, opts.goal, '--goal');
  return {
    ...(opts.strategy !== undefined ? { strategy: choice(strategyNames, opts.strategy, '--strategy') } : {}),
    ...(opts.resolver !== undefined ? { resolver: choice(RESOLVER_MODES, opts.resolver, '--resolver') } : {}),
    ...(opts.firstParent === false ? { firstParent: false } : {}),
  };
}

/** A flag's value as one of its choices (commander has checked it; this gives it its type). */
function choice<T extends string>(choices: readonly T[], value: string, flag: string): T {
  const found = choices.find((c) => c === value);
  if (found === undefined)
    throw new UsageError('merge_option_invalid', {
      what: `${flag} ${value} is not one of ${choices.join(', ')}`,
      fix: `Use ${flag} ${choices.join('|')}`,
    });
  return found;
}

/** What the terminal gives a lifecycle operation (`options`), and `close`, to call once it has returned. */
export interface Session {
  options: DriveOptions;
  close(): void;
}

/**
 * What the terminal provides a lifecycle operation: the log (opened when the run starts), Ctrl-C
 * stopping the run at its next safe point, and the questions of --interactive. The caller passes
 * `options` on and calls `close` once the operation has returned, whatever it did.
 */
export function openSession(global: GlobalOptions, config: Config, interactive: boolean | undefined): Session {
  const controller = new AbortController();
  const prompter = interactive ? new Prompter(process.stdin, process.stderr) : null;
  // No progress line under --interactive: questions are asked on the same terminal.
  const progress = interactive ? null : new ProgressDisplay(process.stderr);
  let closeLog = (): void => undefined;
  const onSigint = (): void => {
    process.stderr.write('\nStopping at the next safe point (Ctrl-C again to force)...\n');
    controller.abort();
    process.once('SIGINT', () => process.exit(130));
  };
  const options: DriveOptions = {
    openLog: () => {
      const logs = createCliLogger(global, config, progress?.terminal ? progress.consoleStream() : undefined);
      closeLog = logs.close;
      progress?.useLogger(logs.logger);
      process.once('SIGINT', onSigint);
      return logs.logger;
    },
    ...(progress ? { onProgress: (state, event, replayed) => progress.update(state, event, replayed) } : {}),
    env: process.env,
    signal: controller.signal,
    ...(prompter
      ? {
          interactive: {
            checks: (inner) => approvingChecks(inner, prompter, config.check.commands, () => controller.abort()),
            approver: terminalApprover(prompter),
          },
        }
      : {}),
  };
  const close = (): void => {
    progress?.stop();
    process.removeListener('SIGINT', onSigint);
    prompter?.close();
    closeLog();
  };
  return { options, close };
}

export function report(outcome: DriveOutcome): number {
  const s = outcome.state;
  switch (outcome.kind) {
    case 'done': {
      const rungs = new Map<string, number>();
      for (const h of s.conflicts.flatMap((c) => c.files.flatMap((f) => f.hunks)))
        rungs.set(h.rung ?? 'open', (rungs.get(h.rung ?? 'open') ?? 0) + 1);
      const cost = sumUsage(Object.values(s.usage)).costUsd;
      printResult(
        [
          `Merged ${s.upstream.ref} into ${s.fork.branch}: ${s.finalCommit}`,
          `  conflicts: ${s.conflicts.length} (hunks by rung: ${[...rungs].map(([r, n]) => `${r} ${n}`).join(', ') || 'none'})`,
          `  checks run: ${s.checks.length}, attempts: ${s.attempts.length}, model cost: $${cost.toFixed(4)}`,
          `  ${finalValidation(s)?.text ?? 'not validated: no check ran on the merged tree'}`,
        ].join('\n'),
      );
      return ExitCode.Done;
    }
    case 'needs_person': {
      const h = s.handoff;
      process.stderr.write(
        terminalText(
          [`The merge needs the person: ${outcome.reason}`, '', ...(h ? handoffLines(h) : []), ''].join('\n'),
        ),
      );
      return ExitCode.NeedsPerson;
    }
    case 'stopped':
      process.stderr.write(terminalText(`Stopped before '${outcome.resumeAt}'. Resume with: ${outcome.resume}\n`));
      return ExitCode.Failed;
    case 'failed':
      // An abort that presented resolutions for a fix: what to fix, where, and the way back in.
      if (outcome.retryable && s.handoff) process.stderr.write([...handoffLines(s.handoff), ''].join('\n'));
      throw failedError(s.name, outcome);
  }
}

/**
 * The error a failed run ends with. When a node failed on a SplintercatError (a rejected
 * API key, say), its cause and fix are the user's to-do: keep them, and its code, so the
 * message names what to change (the key's variable) and the exit code keeps its kind.
 */
function failedError(name: string, outcome: Extract<DriveOutcome, { kind: 'failed' }>): SplintercatError {
  const resume = outcome.retryable && outcome.resume ? outcome.resume : null;
  const cause = outcome.error;
  if (SplintercatError.isInstance(cause)) {
    return new SplintercatError(cause.code, {
      what: `The merge '${name}' failed: ${cause.what}`,
      ...(cause.why !== undefined ? { why: cause.why } : {}),
      fix: [...cause.fix, ...(resume ? [`Then resume: ${resume}`] : [])],
      ...(cause.where !== undefined ? { where: cause.where } : {}),
    });
  }
  return new SplintercatError('merge_failed', {
    what: `The merge '${name}' failed`,
    why: outcome.reason,
    fix: resume
      ? [`Fix the cause, then: ${resume}`]
      : ['Inspect it: splintercat status', `Drop it: splintercat abort --name ${name}`],
  });
}
