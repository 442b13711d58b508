import type { Git } from '../../git/index.js';
import { listRemoteRefs } from '../../git/remote-refs.js';
import type { Logger } from '../../log/logger.js';
import { lookDelay } from '../../util/look-delay.js';
import { shortOid } from '../../util/short-oid.js';

export type WaitOutcome =
  | { kind: 'result'; ref: string; oid: string }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  /** The remote answers again after it could not be reached: what was pushed meanwhile may be lost. */
  | { kind: 'reconnected' };

/** A request given up (timed out, cancelled): a result that still comes for it is ignored, and said so. */
export interface Withdrawn {
  check: string;
  commit: string;
  why: string;
  /** Stop looking for its result after this time (ms since the epoch). */
  until: number;
}

interface Waiter {
  /** The result refs it waits on: the first of them to appear ends the wait. */
  refs: readonly string[];
  done: (outcome: WaitOutcome) => void;
  /** When it began to wait (ms since the epoch). */
  since: number;
}

/** The longest wait between two looks, however long a check has run. */
export const LONGEST_POLL_MS = 60_000;

/** How long to wait before the next look: lookDelay of the request that has waited least, from `pollMs` up to LONGEST_POLL_MS. */
export function pollDelay(pollMs: number, waitedMs: readonly number[]): number {
  return waitedMs.length === 0 ? pollMs : lookDelay(Math.min(...waitedMs), pollMs, LONGEST_POLL_MS);
}

/**
 * Looks for check results on a remote for every check in flight at once: one `git ls-remote` of
 * the run's check refs per poll, however many checks wait, so several checks in flight cost one
 * look. It polls only while something waits or a withdrawn request may still get its result,
 * less often the longer the checks run (pollDelay). The watcher only sees refs appear: whether a
 * result answers a request (its nonce) is for the caller to tell, which then waits on other refs.
 */
export class ResultWatcher {
  private readonly waiting = new Set<Waiter>();
  private readonly withdrawn = new Map<string, Withdrawn>();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer's look is due (ms since the epoch). */
  private dueAt = 0;
  private polling = false;
  private unreachableSaid = false;
  /** Results seen for withdrawn requests, in the order they came. */
  readonly ignored: Array<Withdrawn & { ref: string; oid: string }> = [];

  constructor(
    private readonly git: Git,
    private readonly remote: string,
    private readonly pattern: string,
    private readonly pollMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Wait for one of `refs` to appear on the remote, until `deadline` (ms since the epoch) or
   * `signal`; or until the remote answers again after an outage (`reconnected`).
   */
  wait(refs: readonly string[], deadline: number, signal?: AbortSignal): Promise<WaitOutcome> {
    return new Promise((resolve) => {
      let settled = false;
      const waiter: Waiter = {
        refs,
        since: this.now(),
        done: (outcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(timeout);
          signal?.removeEventListener('abort', onAbort);
          this.waiting.delete(waiter);
          // The look already due no longer keeps the process alive once nothing waits (a drive that ended).
          if (this.waiting.size === 0) this.timer?.unref();
          resolve(outcome);
        },
      };
      const onAbort = (): void => waiter.done({ kind: 'aborted' });
      const timeout = setTimeout(() => waiter.done({ kind: 'timeout' }), Math.max(0, deadline - this.now()));
      this.waiting.add(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      this.schedule(0);
    });
  }

  /** Keep looking for the result of a request given up, to record it as ignored if it still comes. */
  withdraw(ref: string, info: Withdrawn): void {
    this.withdrawn.set(ref, info);
    this.schedule(this.pollMs);
  }

  /** Look after `delayMs`, or sooner if a look is already due sooner. */
  private schedule(delayMs: number): void {
    if (this.polling) return;
    if (this.waiting.size === 0 && this.withdrawn.size === 0) return;
    const due = this.now() + delayMs;
    if (this.timer !== undefined) {
      if (due >= this.dueAt) return;
      clearTimeout(this.timer);
    }
    this.dueAt = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll();
    }, delayMs);
    // Looking out for late results of withdrawn requests never keeps the process alive.
    if (this.waiting.size === 0) this.timer.unref();
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      const refs = await listRemoteRefs(this.git, this.remote, [this.pattern]).catch(() => null);
      if (refs === null) {
        if (!this.unreachableSaid)
          this.log.warn({ remote: this.remote }, `cannot reach ${this.remote} for check results; still trying`);
        this.unreachableSaid = true;
      } else {
        this.settle(refs);
        if (this.unreachableSaid) {
          this.log.info({ remote: this.remote }, `${this.remote} answers again`);
          for (const w of [...this.waiting]) w.done({ kind: 'reconnected' });
        }
        this.unreachableSaid = false;
      }
    } finally {
      this.polling = false;
    }
    const time = this.now();
    for (const [ref, w] of this.withdrawn) if (w.until <= time) this.withdrawn.delete(ref);
    const waited = [...this.waiting].map((w) => time - w.since);
    this.schedule(pollDelay(this.pollMs, waited));
  }

  private settle(refs: Map<string, string>): void {
    for (const w of [...this.waiting]) {
      const ref = w.refs.find((r) => refs.has(r));
      if (ref !== undefined) w.done({ kind: 'result', ref, oid: refs.get(ref) as string });
    }
    for (const [ref, info] of this.withdrawn) {
      const oid = refs.get(ref);
      if (oid === undefined) continue;
      this.withdrawn.delete(ref);
      this.ignored.push({ ...info, ref, oid });
      this.log.decision(
        { check: info.check, commit: info.commit, ref, result: oid },
        `[check] a result came for '${info.check}' on ${shortOid(info.commit)} after its request was withdrawn (${info.why}): ignored; it stays at ${ref} on ${this.remote}`,
      );
    }
  }

  /** Stop polling (pending waits still end at their deadline). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.withdrawn.clear();
  }
}
