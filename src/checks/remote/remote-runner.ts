import { hostname } from 'node:os';
import { SplintercatError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { OBJECT_LIMITS } from '../../git/object-limits.js';
import { fetchRefs, listRemoteRefs, pushRefs } from '../../git/remote-refs.js';
import type { Logger } from '../../log/logger.js';
import { nullLogger } from '../../log/logger.js';
import { systemClock, type Clock } from '../../util/clock.js';
import type { PreflightProblem } from '../check-runner.js';
import { createCheckLog, lastLines, unknownCheck } from '../log-file.js';
import type { CheckResult, CheckRunnerLike, RunCheckOptions } from '../types.js';
import { createRequestCommit, snapshotWorktree } from './commits.js';
import {
  LOG_FILE,
  RESULT_FILE,
  checkRefs,
  checkRequestId,
  checksPrefix,
  parseResultRecord,
  type CheckRefs,
  type CheckRequest,
  type CheckResultRecord,
} from './protocol.js';
import { ResultWatcher } from './result-watcher.js';
import { shortOid } from '../../util/short-oid.js';

export interface RemoteCheckRunnerOptions {
  /** The repository the commits under test are in. */
  git: Git;
  /** A git remote of it (name or URL), where the CI job reads requests and writes results. */
  remote: string;
  /** The run's name: its check refs are `refs/splintercat/RUN/checks/`. */
  run: string;
  /** The main checkout: where the job definition files are read, and the default of what a check without a commit tests. */
  workdir: string;
  /** Where the local account of each check (its result and the end of its log) is written. */
  outputDir: string;
  commands: Record<string, string>;
  setup?: string;
  /** `check.setup_network` and `check.setup_when`, for the job's setup (as a local check's). */
  setupNetwork?: boolean;
  setupWhen?: readonly string[];
  timeoutSec: number;
  killGraceSec?: number;
  trigger?: 'ref' | 'branch';
  /** Path in the request commit -> job definition file relative to `workdir`. */
  jobs?: Readonly<Record<string, string>>;
  parallel?: number;
  pollMs?: number;
  logger?: Logger;
  clock?: Clock;
  /** Who asks, written into each request (default: the host name). */
  host?: string;
}

/**
 * Runs the named checks on CI runners reached through a git remote (protocol.ts): the commit
 * under test goes out as a request ref, the result comes back as the job's result ref. Several
 * checks may be in flight at once (`parallel`); one watcher looks for all their results. A
 * result that does not come within `check.timeout` ends the check as timed out, as a local
 * check's timeout does, and the request is withdrawn; a result that still comes for a withdrawn
 * request is ignored and said so in the decision log. The same check of the same tree asked
 * again (another machine's commit of it, a resumed run) reuses the request and its result.
 */
export class RemoteCheckRunner implements CheckRunnerLike {
  readonly remote = true;
  readonly parallel: number;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly watcher: ResultWatcher;

  constructor(private readonly options: RemoteCheckRunnerOptions) {
    this.parallel = options.parallel ?? 4;
    this.log = options.logger ?? nullLogger;
    this.clock = options.clock ?? systemClock;
    this.watcher = new ResultWatcher(
      options.git,
      options.remote,
      `${checksPrefix(options.run)}*`,
      options.pollMs ?? 10_000,
      this.log,
    );
  }

  names(): string[] {
    return Object.keys(this.options.commands);
  }

  /** Results that came for withdrawn requests (ignored). */
  ignoredResults(): ResultWatcher['ignored'] {
    return this.watcher.ignored;
  }

  /** Checks that cannot run, found before a merge starts: names check.commands does not define (the remote is tried at the first request). */
  preflight(names: string[] = this.names()): PreflightProblem[] {
    return names
      .filter((n) => this.options.commands[n] === undefined)
      .map((name) => ({
        name,
        message: `not defined in check.commands (defined: ${this.names().join(', ') || 'none'})`,
      }));
  }

  async run(name: string, options: RunCheckOptions = {}): Promise<CheckResult> {
    const command = this.options.commands[name];
    if (command === undefined) throw unknownCheck(name, this.names());
    const started = Date.now();
    const git = this.options.git;
    const commit = options.commit ?? (await snapshotWorktree(git, options.cwd ?? this.options.workdir));
    const timeoutSec = this.options.timeoutSec;
    const tree = await git.resolve(`${commit}^{tree}`);
    const refs = checkRefs(this.options.run, checkRequestId(name, command, tree, timeoutSec));
    const request: CheckRequest = {
      splintercat: 'check-request',
      version: 1,
      id: refs.id,
      run: this.options.run,
      check: name,
      command,
      setup: this.options.setup ?? '',
      setupNetwork: this.options.setupNetwork ?? false,
      setupWhen: [...(this.options.setupWhen ?? [])],
      untrusted: [...(options.untrusted ?? [])],
      timeoutSec,
      killGraceSec: this.options.killGraceSec ?? 10,
      commit,
      requestedAt: this.clock.now().toISOString(),
      by: this.options.host ?? hostname(),
    };
    const requestRef = this.options.trigger === 'branch' ? refs.branch : refs.request;
    if (options.leave?.aborted) throw new CheckLeft(name, requestRef);
    const sent = await this.send(request, refs, requestRef);
    if (options.leave?.aborted && !options.signal?.aborted) throw new CheckLeft(name, requestRef);
    this.log.info(
      { check: name, commit: shortOid(commit), ref: requestRef, remote: this.options.remote },
      `check '${name}' requested on ${this.options.remote}`,
    );
    const stop = either(options.signal, options.leave);
    const outcome =
      sent.result !== null
        ? ({ kind: 'result', oid: sent.result } as const)
        : await this.watcher.wait(refs.result, started + timeoutSec * 1000, stop.signal).finally(stop.dispose);
    if (outcome.kind === 'aborted' && options.leave?.aborted && !options.signal?.aborted)
      throw new CheckLeft(name, requestRef);
    if (outcome.kind === 'result') {
      const result = await this.collect(request, refs, outcome.oid, started);
      await this.retire(requestRef, sent.request);
      return result;
    }
    const why = outcome.kind === 'timeout' ? `no result within ${timeoutSec} s` : 'the check was cancelled';
    await this.retire(requestRef, sent.request);
    this.watcher.withdraw(refs.result, { check: name, commit, why, until: Date.now() + timeoutSec * 1000 });
    return this.giveUp(request, refs, outcome.kind === 'timeout', started, why);
  }

  /** Stop looking for results (pending checks still end at their time limit). */
  close(): void {
    this.watcher.close();
  }

  /**
   * Push the request unless its result is already on the remote; a request already there (asked by
   * another machine or an earlier run) is waited on as it is.
   */
  private async send(
    request: CheckRequest,
    refs: CheckRefs,
    requestRef: string,
  ): Promise<{ result: string | null; request: string | null }> {
    const { git, remote } = this.options;
    const known = await listRemoteRefs(git, remote, [refs.result, requestRef]);
    if (known === null) throw unreachable(remote, 'send a check request');
    const result = known.get(refs.result);
    if (result !== undefined) return { result, request: null };
    const existing = known.get(requestRef);
    if (existing !== undefined) return { result: null, request: existing };
    const commit = await createRequestCommit(git, request, this.options.jobs ?? {}, this.options.workdir);
    const pushed = await pushRefs(git, remote, [{ ref: requestRef, newOid: commit, expect: null }]);
    if (!pushed.ok && pushed.reason === 'unreachable') throw unreachable(remote, 'send a check request', pushed.stderr);
    // Rejected: the same request was pushed meanwhile (same id = same check of the same commit); wait for its result.
    return { result: null, request: pushed.ok ? commit : null };
  }

  /** Fetch the result, check that it answers this request, and write the local log. */
  private async collect(request: CheckRequest, refs: CheckRefs, oid: string, started: number): Promise<CheckResult> {
    const { git, remote } = this.options;
    if (!(await fetchRefs(git, remote, [`+${refs.result}:${refs.result}`])))
      throw unreachable(remote, `fetch the result ${refs.result}`);
    // The result comes from the remote: each file is read within its size limit, never whole first.
    const resultRead = await git.readBlobCapped(`${oid}:${RESULT_FILE}`, OBJECT_LIMITS.checkResult);
    const logRead = await git.readBlobCapped(`${oid}:${LOG_FILE}`, OBJECT_LIMITS.checkLog);
    const json = resultRead.ok ? resultRead.text : '';
    const tail = logRead.ok ? logRead.text : '';
    const parsed =
      !resultRead.ok && resultRead.reason !== 'missing'
        ? { ok: false as const, reason: `${RESULT_FILE} is ${resultRead.reason}` }
        : !logRead.ok && logRead.reason !== 'missing'
          ? { ok: false as const, reason: `${LOG_FILE} is ${logRead.reason}` }
          : parseResultRecord(json);
    const problem = !parsed.ok
      ? parsed.reason
      : parsed.record.id !== request.id || parsed.record.check !== request.check
        ? `it is for '${parsed.record.check}' on ${parsed.record.commit}, not this request`
        : null;
    if (problem !== null || !parsed.ok) {
      this.log.warn({ ref: refs.result, problem }, `the result at ${refs.result} cannot be used: ${problem}`);
      return this.giveUp(request, refs, false, started, `the job's result cannot be used: ${problem}`);
    }
    return this.account(request, refs, parsed.record, tail, started);
  }

  private async account(
    request: CheckRequest,
    refs: CheckRefs,
    record: CheckResultRecord,
    tail: string,
    started: number,
  ): Promise<CheckResult> {
    const header = [
      `splintercat: check '${request.check}' ran on ${record.runner} through ${this.options.remote}`,
      `commit: ${request.commit}`,
      `result: ${refs.result}`,
      ...(record.url ? [`log: ${record.url}`] : []),
      `exit code: ${record.exitCode ?? 'none'}${record.timedOut ? ' (timed out)' : ''}, ${(record.durationMs / 1000).toFixed(1)} s on the runner`,
      '',
      '--- the end of the log, as the job reported it ---',
      '',
    ].join('\n');
    const logFile = await this.writeLog(request.check, `${header}${tail}`);
    const result: CheckResult = {
      name: request.check,
      command: request.command,
      success: record.success,
      exitCode: record.exitCode,
      signal: record.signal,
      timedOut: record.timedOut,
      durationMs: Date.now() - started,
      logFile,
      tail: lastLines(tail, 30),
      tests: record.tests,
      url: record.url,
    };
    this.log.info(
      { check: request.check, success: result.success, exitCode: result.exitCode, url: record.url, logFile },
      `check '${request.check}' ${result.success ? 'passed' : 'failed'} on ${record.runner}`,
    );
    return result;
  }

  /** A check whose result did not come (or cannot be used): failed, as a local check that timed out. */
  private async giveUp(
    request: CheckRequest,
    refs: CheckRefs,
    timedOut: boolean,
    started: number,
    why: string,
  ): Promise<CheckResult> {
    const text = `splintercat: check '${request.check}' on ${request.commit} through ${this.options.remote}: ${why}\nrequest: ${refs.id}\nresult expected at: ${refs.result}\n${timedOut ? `\nsplintercat: TIMEOUT after ${request.timeoutSec} seconds; request withdrawn\n` : ''}`;
    const logFile = await this.writeLog(request.check, text);
    this.log.warn({ check: request.check, remote: this.options.remote, logFile }, `check '${request.check}': ${why}`);
    return {
      name: request.check,
      command: request.command,
      success: false,
      exitCode: null,
      signal: timedOut ? null : 'SIGTERM',
      timedOut,
      durationMs: Date.now() - started,
      logFile,
      tail: lastLines(text, 30),
      tests: null,
      url: null,
    };
  }

  /** Remove the request once answered or given up, only if it is still the one pushed (a compare-and-swap). */
  private async retire(requestRef: string, pushed: string | null): Promise<void> {
    if (pushed === null) return;
    const outcome = await pushRefs(this.options.git, this.options.remote, [
      { ref: requestRef, newOid: null, expect: pushed },
    ]);
    if (!outcome.ok) this.log.debug({ ref: requestRef, reason: outcome.reason }, 'check request left on the remote');
  }

  private async writeLog(check: string, text: string): Promise<string> {
    const { path, out } = createCheckLog(this.options.outputDir, check, this.clock.now());
    await new Promise<void>((done) => out.end(text, done));
    return path;
  }
}

/** A check whose request was left on the remote unanswered (RunCheckOptions.leave): a later run waits on it. */
export class CheckLeft extends Error {
  constructor(
    readonly check: string,
    readonly ref: string,
  ) {
    super(`check '${check}' left waiting at ${ref}`);
  }
}

/**
 * A signal aborted when either is, and how to stop listening to them (AbortSignal.any is newer
 * than the Node versions supported; a drive's signals outlive many checks).
 */
function either(a?: AbortSignal, b?: AbortSignal): { signal: AbortSignal | undefined; dispose: () => void } {
  if (!a || !b) return { signal: a ?? b, dispose: () => undefined };
  const both = new AbortController();
  const abort = (): void => both.abort();
  if (a.aborted || b.aborted) abort();
  a.addEventListener('abort', abort, { once: true });
  b.addEventListener('abort', abort, { once: true });
  const dispose = (): void => {
    a.removeEventListener('abort', abort);
    b.removeEventListener('abort', abort);
  };
  return { signal: both.signal, dispose };
}

function unreachable(remote: string, doing: string, stderr = ''): SplintercatError {
  return new SplintercatError('check_remote_unreachable', {
    what: `Cannot ${doing}: the remote '${remote}' (check.runner.remote) cannot be reached`,
    ...(stderr ? { why: stderr.split('\n').slice(-3).join('\n') } : {}),
    fix: [`Check it with \`git ls-remote ${remote}\``, 'Then run `splintercat continue`'],
  });
}
