import type { Git } from '../../git/index.js';
import { listRemoteRefs, pushRefs } from '../../git/remote-refs.js';
import type { Logger } from '../../log/logger.js';
import { SplintercatError } from '../../errors/index.js';
import type { Clock } from '../../util/clock.js';
import { printableName } from '../../util/safe-print.js';
import { shortOid } from '../../util/short-oid.js';
import { createRequestCommit } from './commits.js';
import type { OwnRequests } from './own-requests.js';
import { checkRefs, checkRequestId, checksPrefix, newNonce, type CheckRefs, type CheckRequest } from './protocol.js';
import { LONGEST_POLL_MS } from './result-watcher.js';

/** What of RemoteCheckRunnerOptions sending a request needs. */
export interface SenderOptions {
  git: Git;
  remote: string;
  run: string;
  workdir: string;
  timeoutSec: number;
  trigger?: 'ref' | 'branch';
  jobs?: Readonly<Record<string, string>>;
  pollMs?: number;
  resendAfterMs?: number;
}

/** The most requests one check sends (a lost job, a rejected result, an outage each send one more). */
export const MOST_SENDS = 4;

/** One request of this clone on the remote, whose result is waited on. */
export interface Sent {
  request: CheckRequest;
  refs: CheckRefs;
  requestRef: string;
  /** The request commit as pushed (what `retire` removes only if it is still there). */
  pushed: string;
}

/** One check asked of CI: the requests sent for it, and when to send again if nothing usable came. */
export interface Ask {
  key: string;
  /** The request without what each send makes fresh (id, nonce, time). */
  template: Omit<CheckRequest, 'id' | 'nonce' | 'requestedAt'>;
  live: Sent[];
  sends: number;
  /** The last push did not reach the remote: sent again at `nextAt`, however many sends were made. */
  unsent: boolean;
  pushFailures: number;
  /** When to send again if no usable result came (ms since the epoch). */
  nextAt: number;
  /** What was refused on the way, for the log of a check given up. */
  rejected: string[];
  /** The newest request ref, for a check left waiting. */
  lastRef: string;
}

/**
 * The sending half of RemoteCheckRunner: fresh requests pushed (each kept in this clone's own refs
 * first), sent again when lost, and withdrawn once settled; what the remote holds that this clone
 * did not ask for is named in the decision log and never taken.
 */
export class RequestSender {
  /** The remote answered once: later failures to reach it are an outage, waited out. */
  private reached = false;
  /** Result refs this clone did not ask for (or no longer waits on), already named in the log. */
  readonly named = new Set<string>();

  constructor(
    private readonly options: SenderOptions,
    private readonly own: OwnRequests,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  resendAfterMs(): number {
    return this.options.resendAfterMs ?? (this.options.timeoutSec * 1000) / 2;
  }

  sentOf(request: CheckRequest, pushed: string): Sent {
    const refs = checkRefs(this.options.run, request.id);
    return { request, refs, requestRef: this.options.trigger === 'branch' ? refs.branch : refs.request, pushed };
  }

  /** Send the check again, said in the decision log, unless it has been sent MOST_SENDS times (a failed push is always tried again). */
  async sendAgain(ask: Ask, why: string | null): Promise<void> {
    if (!ask.unsent && ask.sends >= MOST_SENDS) {
      ask.nextAt = Infinity;
      return;
    }
    if (why !== null)
      this.log.decision(
        { check: ask.template.check, commit: shortOid(ask.template.commit), sends: ask.sends + 1 },
        `[check] ${ask.template.check} on ${shortOid(ask.template.commit)}: ${why}; request sent again (${ask.sends + 1} of at most ${MOST_SENDS})`,
      );
    await this.send(ask);
  }

  /**
   * Push a fresh request (a new nonce, so a new id) and keep it in this clone's own refs first. An
   * id already used on the remote (a result or request there before this clone asked: pushed
   * ahead of any request) is never taken: it is named in the log and another id drawn. A push that
   * does not reach the remote is tried again later, never left unsaid.
   */
  async send(ask: Ask): Promise<void> {
    const { git, remote } = this.options;
    const patterns = [
      `${checksPrefix(this.options.run)}${ask.key}*`,
      `refs/heads/${checksPrefix(this.options.run).slice(5)}${ask.key}*`,
    ];
    for (let draw = 0; draw < 3; draw++) {
      const nonce = newNonce();
      const id = checkRequestId(ask.key, nonce);
      const request: CheckRequest = { ...ask.template, id, nonce, requestedAt: this.clock.now().toISOString() };
      const sent = this.sentOf(request, '');
      const known = await listRemoteRefs(git, remote, patterns);
      if (known === null && !this.reached) throw unreachable(remote, 'send a check request');
      if (known === null) return this.unsent(ask, 'it cannot be reached');
      this.reached = true;
      this.nameForeign(ask, known);
      if (known.has(sent.refs.result) || known.has(sent.requestRef)) {
        this.reject(ask, sent.refs.result, 'it was there before this clone sent its request');
        continue;
      }
      sent.pushed = await createRequestCommit(git, request, this.options.jobs ?? {}, this.options.workdir);
      await this.own.keep(ask.key, request, sent.pushed);
      const pushed = await pushRefs(git, remote, [{ ref: sent.requestRef, newOid: sent.pushed, expect: null }]);
      if (!pushed.ok) await this.own.forget(ask.key, id);
      if (!pushed.ok && pushed.reason === 'unreachable')
        return this.unsent(ask, pushed.stderr.split('\n').at(-1) ?? '');
      if (!pushed.ok) {
        this.reject(ask, sent.requestRef, 'a request was pushed there by someone else meanwhile');
        continue;
      }
      ask.live.push(sent);
      ask.sends++;
      ask.unsent = false;
      ask.pushFailures = 0;
      ask.lastRef = sent.requestRef;
      ask.nextAt = Date.now() + this.resendAfterMs();
      this.log.info(
        { check: request.check, commit: shortOid(request.commit), ref: sent.requestRef, remote },
        `check '${request.check}' requested on ${remote}`,
      );
      return;
    }
    this.unsent(ask, 'no fresh request id could be used');
  }

  /** The request could not be pushed: said, and tried again after a delay that grows to LONGEST_POLL_MS. */
  private unsent(ask: Ask, why: string): void {
    const delay = Math.min(LONGEST_POLL_MS, (this.options.pollMs ?? 10_000) * 2 ** ask.pushFailures);
    if (ask.pushFailures === 0)
      this.log.warn(
        { check: ask.template.check, remote: this.options.remote },
        `check '${ask.template.check}': the request could not be sent to ${this.options.remote} (${why}); trying again until the check's time limit`,
      );
    ask.unsent = true;
    ask.pushFailures++;
    ask.nextAt = Date.now() + delay;
  }

  /**
   * Results on the remote for this check of this tree that answer no request of this clone (another
   * clone's, or pushed ahead of any request): named once in the decision log, never read.
   */
  private nameForeign(ask: Ask, known: Map<string, string>): void {
    const ours = new Set(ask.live.map((s) => s.refs.result));
    for (const ref of known.keys()) {
      if (!ref.endsWith('/result') || ours.has(ref) || this.named.has(ref)) continue;
      this.named.add(ref);
      this.log.decision(
        { check: ask.template.check, ref },
        `[check] ignored the result at ${printableName(ref)} for '${ask.template.check}' on ${shortOid(ask.template.commit)}: no request of this clone waits on it (pushed ahead of any request, or another clone's); not counted`,
      );
    }
  }

  /** A result (or ref) this clone did not ask for: named in the decision log, never taken. */
  reject(ask: Ask, ref: string, why: string): void {
    ask.rejected.push(`${ref}: ${why}`);
    this.named.add(ref);
    this.log.decision(
      { check: ask.template.check, ref, why },
      `[check] rejected the ${ref.endsWith('/result') ? 'result' : 'request'} at ${printableName(ref)} for '${ask.template.check}' on ${shortOid(ask.template.commit)}: ${why}; not counted${ask.sends < MOST_SENDS ? ', a fresh request is sent' : ''}`,
    );
  }

  /** Remove requests from the remote, each only if it is still the one pushed (a compare-and-swap). */
  async retire(sent: readonly Sent[]): Promise<void> {
    if (sent.length === 0) return;
    const outcome = await pushRefs(
      this.options.git,
      this.options.remote,
      sent.map((s) => ({ ref: s.requestRef, newOid: null, expect: s.pushed })),
    );
    if (!outcome.ok) this.log.debug({ reason: outcome.reason }, 'check request(s) left on the remote');
  }
}

function unreachable(remote: string, doing: string, stderr = ''): SplintercatError {
  return new SplintercatError('check_remote_unreachable', {
    what: `Cannot ${doing}: the remote '${remote}' (check.runner.remote) cannot be reached`,
    ...(stderr ? { why: stderr.split('\n').slice(-3).join('\n') } : {}),
    fix: [`Check it with \`git ls-remote ${remote}\``, 'Then run `splintercat continue`'],
  });
}
