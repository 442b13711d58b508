import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Git } from '../../git/index.js';
import { OBJECT_LIMITS } from '../../git/object-limits.js';
import { fetchRefs, listRemoteRefs } from '../../git/remote-refs.js';
import type { Logger } from '../../log/logger.js';
import { nullLogger } from '../../log/logger.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { redactKnown } from '../../util/secret-registry.js';
import type { PreflightProblem } from '../check-preflight.js';
import { createCheckLog, lastLines, unknownCheck } from '../log-file.js';
import type { CheckResult, CheckRunnerLike, RunCheckOptions } from '../types.js';
import { snapshotWorktree } from './commits.js';
import { OwnRequests } from './own-requests.js';
import { MOST_SENDS, RequestSender, type Ask, type Sent } from './request-sender.js';
import {
  LOG_FILE,
  PROTOCOL_VERSION,
  RESULT_FILE,
  checkRequestKey,
  checksPrefix,
  parseResultRecord,
  resultProblem,
  type CheckResultRecord,
} from './protocol.js';
import { RESULT_KEY_VARIABLE, resultKey } from './result-key.js';
import { ResultWatcher } from './result-watcher.js';

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
  /** How long a request may go unanswered before it is sent again (default: half of `timeoutSec`). */
  resendAfterMs?: number;
  /** The result key results must be signed with (result-key.ts); default: SPLINTERCAT_RESULT_KEY of this process's environment, if set. */
  resultKey?: string | null;
}

/**
 * Runs the named checks on CI runners reached through a git remote (protocol.ts): the commit
 * under test goes out as a request ref, the result comes back as the job's result ref. Several
 * checks may be in flight at once (`parallel`); one watcher looks for all their results.
 *
 * Only an answer to this clone's own request counts: each request has a fresh secret nonce and
 * id, kept in this clone's own refs (own-requests.ts), and a result whose nonce, commit or check
 * is not the request's, or one already there before the request was pushed, is rejected, named in
 * the decision log, and a fresh request is sent (a result ref is created only if absent, so the
 * real job could never answer at the id a forged result holds). A request that goes unanswered
 * for `resendAfterMs`, one whose push did not reach the remote, and one pushed before an outage
 * of the remote are sent again (at most MOST_SENDS requests a check; every one of them may answer).
 * A result that does not come within `check.timeout` ends the check as timed out, as a local
 * check's timeout does, and the requests are withdrawn; a result that still comes for a withdrawn
 * request is ignored and said so in the decision log. A later process of the run asking the same
 * check of the same tree waits on the requests an earlier one left (RunCheckOptions.leave).
 */
export class RemoteCheckRunner implements CheckRunnerLike {
  readonly remote = true;
  readonly parallel: number;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly watcher: ResultWatcher;
  private readonly own: OwnRequests;
  private readonly sender: RequestSender;
  private readonly key: string | null;
  /** Whether the warning that results are taken on their nonce alone was given (once a process). */
  private warned = false;

  constructor(private readonly options: RemoteCheckRunnerOptions) {
    this.parallel = options.parallel ?? 4;
    this.log = options.logger ?? nullLogger;
    this.clock = options.clock ?? systemClock;
    this.own = new OwnRequests(options.git, options.run);
    this.key = options.resultKey !== undefined ? options.resultKey : resultKey(process.env);
    this.sender = new RequestSender(options, this.own, this.log, this.clock);
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
    const deadline = started + this.options.timeoutSec * 1000;
    this.warnUnsigned();
    const ask = await this.open(name, command, options);
    if (options.leave?.aborted) throw new CheckLeft(name, ask.lastRef);
    if (ask.live.length === 0) await this.sender.send(ask);
    if (options.leave?.aborted && !options.signal?.aborted) throw new CheckLeft(name, ask.lastRef);
    const stop = either(options.signal, options.leave);
    try {
      for (;;) {
        const refs = ask.live.map((s) => s.refs.result);
        const outcome = await this.watcher.wait(refs, Math.min(deadline, ask.nextAt), stop.signal);
        if (outcome.kind === 'aborted' && options.leave?.aborted && !options.signal?.aborted)
          throw new CheckLeft(name, ask.lastRef);
        if (outcome.kind === 'result') {
          const sent = ask.live.find((s) => s.refs.result === outcome.ref) as Sent;
          const answer = await this.collect(ask, sent, outcome.oid);
          if (answer !== null) {
            const result = await this.account(sent, answer.record, answer.tail, started);
            await this.settle(ask);
            return result;
          }
          // Rejected (not merely unfetched): its id is spent, a fresh request lets the real job answer.
          if (!ask.live.includes(sent) && ask.sends < MOST_SENDS) await this.sender.send(ask);
          continue;
        }
        if (outcome.kind === 'timeout' && Date.now() < deadline) {
          await this.sender.sendAgain(ask, ask.unsent ? null : `no result for ${this.sender.resendAfterMs() / 1000} s`);
          continue;
        }
        if (outcome.kind === 'reconnected') {
          await this.sender.sendAgain(ask, `${this.options.remote} could not be reached while the check waited`);
          continue;
        }
        const why = outcome.kind === 'timeout' ? this.timeoutText(ask) : 'the check was cancelled';
        await this.settle(ask, { check: name, commit: ask.template.commit, why });
        return this.giveUp(ask, outcome.kind === 'timeout', started, why);
      }
    } finally {
      stop.dispose();
    }
  }

  /** Stop looking for results (pending checks still end at their time limit). */
  close(): void {
    this.watcher.close();
  }

  /** Without a result key, anyone who reads the remote reads a request's nonce: said once, at the first check. */
  private warnUnsigned(): void {
    if (this.key !== null || this.warned) return;
    this.warned = true;
    this.log.warn(
      { remote: this.options.remote, variable: RESULT_KEY_VARIABLE },
      `check results from ${this.options.remote} are taken on their request's nonce alone: without ${RESULT_KEY_VARIABLE} (the secret the CI's job signs results with) anyone who can read the remote can answer a request`,
    );
  }

  private timeoutText(ask: Ask): string {
    const rejected = ask.rejected.length > 0 ? ` (rejected: ${ask.rejected.join('; ')})` : '';
    return `no result within ${this.options.timeoutSec} s${rejected}`;
  }

  /**
   * The check of `name` on the commit under test: its key, and the requests this clone sent for it
   * and left unsettled (an earlier process's), those still on the remote or answered there.
   */
  private async open(name: string, command: string, options: RunCheckOptions): Promise<Ask> {
    const { git, timeoutSec } = this.options;
    const commit = options.commit ?? (await snapshotWorktree(git, options.cwd ?? this.options.workdir));
    const tree = await git.resolve(`${commit}^{tree}`);
    // The key names refs on the remote: of the command as it may cross, never a digest of a secret.
    const key = checkRequestKey(name, redactKnown(command), tree, timeoutSec);
    const template: Ask['template'] = {
      splintercat: 'check-request',
      version: PROTOCOL_VERSION,
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
      by: this.options.host ?? hostname(),
    };
    const ask: Ask = {
      key,
      template,
      live: [],
      sends: 0,
      unsent: false,
      pushFailures: 0,
      nextAt: 0,
      rejected: [],
      lastRef: '',
    };
    const kept = await this.own.list(key);
    if (kept.length === 0) return ask;
    const sent = kept.map(({ request, commit: pushed }) => this.sender.sentOf(request, pushed));
    const known = await listRemoteRefs(
      git,
      this.options.remote,
      sent.flatMap((s) => [s.refs.result, s.requestRef]),
    );
    for (const s of sent) {
      // Unreachable: the requests are taken as they were left (the outage, once over, sends them again).
      const there = known === null || known.has(s.refs.result) || known.get(s.requestRef) === s.pushed;
      if (there) ask.live.push(s);
      else await this.own.forget(key, s.request.id);
    }
    ask.sends = ask.live.length;
    ask.lastRef = ask.live.at(-1)?.requestRef ?? '';
    ask.nextAt = Date.now() + this.sender.resendAfterMs();
    return ask;
  }

  /**
   * Fetch the result at `sent`'s ref and check that it answers that request (nonce, id, check,
   * commit, and the result key's signature when this clone has one). Null when it does not: rejected, the request withdrawn and forgotten (its id is spent:
   * the real job can no longer write there).
   */
  private async collect(
    ask: Ask,
    sent: Sent,
    oid: string,
  ): Promise<{ record: CheckResultRecord; tail: string } | null> {
    const { git, remote } = this.options;
    const refs = sent.refs;
    const fetched = await fetchRefs(git, remote, [`+${refs.result}:${refs.result}`]);
    // Not fetched (the remote went away meanwhile): looked at again a moment later.
    if (!fetched) {
      await sleep(this.options.pollMs ?? 10_000);
      return null;
    }
    const read = await readResult(git, oid);
    const problem = !read.ok ? read.reason : resultProblem(sent.request, read.record, this.key, sent.pushed);
    if (problem === null && read.ok) return { record: read.record, tail: read.tail };
    ask.live = ask.live.filter((s) => s !== sent);
    this.sender.reject(ask, refs.result, problem ?? 'it cannot be read');
    await this.sender.retire([sent]);
    await this.own.forget(ask.key, sent.request.id);
    return null;
  }

  private async account(sent: Sent, record: CheckResultRecord, tail: string, started: number): Promise<CheckResult> {
    const { request, refs } = sent;
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
  private async giveUp(ask: Ask, timedOut: boolean, started: number, why: string): Promise<CheckResult> {
    const { check, commit, command, timeoutSec } = { ...ask.template };
    const ids = ask.live.map((s) => s.refs.id).join(', ') || 'none on the remote';
    const text = `splintercat: check '${check}' on ${commit} through ${this.options.remote}: ${why}\nrequests: ${ids}\n${timedOut ? `\nsplintercat: TIMEOUT after ${timeoutSec} seconds; request withdrawn\n` : ''}`;
    const logFile = await this.writeLog(check, text);
    this.log.warn({ check, remote: this.options.remote, logFile }, `check '${check}': ${why}`);
    return {
      name: check,
      command,
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

  /**
   * The check is over (answered, or given up: `withdrawn` says why, and a result that still comes
   * is said to be ignored): its requests are removed from the remote and forgotten here.
   */
  private async settle(ask: Ask, withdrawn?: { check: string; commit: string; why: string }): Promise<void> {
    await this.sender.retire(ask.live);
    // This clone's own settled requests: their results are not named as foreign when the check is asked again.
    for (const s of ask.live) this.sender.named.add(s.refs.result);
    if (withdrawn)
      for (const s of ask.live)
        this.watcher.withdraw(s.refs.result, { ...withdrawn, until: Date.now() + this.options.timeoutSec * 1000 });
    await this.own.settle(ask.key);
  }

  private async writeLog(check: string, text: string): Promise<string> {
    const { path, out } = createCheckLog(this.options.outputDir, check, this.clock.now(), this.options.workdir);
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

/**
 * The result commit `oid` as fetched from the remote: each file read within its size limit, never
 * whole first, then the record's shape checked.
 */
async function readResult(
  git: Git,
  oid: string,
): Promise<{ ok: true; record: CheckResultRecord; tail: string } | { ok: false; reason: string }> {
  const resultRead = await git.readBlobCapped(`${oid}:${RESULT_FILE}`, OBJECT_LIMITS.checkResult);
  if (!resultRead.ok && resultRead.reason !== 'missing')
    return { ok: false, reason: `${RESULT_FILE} is ${resultRead.reason}` };
  const logRead = await git.readBlobCapped(`${oid}:${LOG_FILE}`, OBJECT_LIMITS.checkLog);
  if (!logRead.ok && logRead.reason !== 'missing') return { ok: false, reason: `${LOG_FILE} is ${logRead.reason}` };
  const parsed = parseResultRecord(resultRead.ok ? resultRead.text : '');
  return parsed.ok ? { ok: true, record: parsed.record, tail: logRead.ok ? logRead.text : '' } : parsed;
}
