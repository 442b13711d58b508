import type { Git } from '../../git/index.js';
import { listRemoteRefs } from '../../git/remote-refs.js';
import { lookDelay } from '../../util/look-delay.js';

/** Looks 250 ms apart at first, then a tenth of the time waited apart, up to 5 s: prompt on a local remote, light on a hosted one. */
const FIRST_LOOK_MS = 250;
const LONGEST_LOOK_MS = 5_000;

/**
 * Wait until the refs of `remote` matching `patterns` differ from `before` (as the caller last saw
 * them: a claim released since, a record added), until `deadline` (ms since the epoch) or
 * `signal`. True when they differ (at the first look already, if they changed meanwhile); false at
 * the deadline, on abort, or when the remote cannot be read.
 */
export async function remoteChange(
  git: Git,
  remote: string,
  patterns: readonly string[],
  before: ReadonlyMap<string, string>,
  deadline: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const seen = [...before].sort().join('\n');
  const started = Date.now();
  while (!signal?.aborted) {
    const refs = await listRemoteRefs(git, remote, patterns);
    if (refs === null) return false;
    if ([...refs].sort().join('\n') !== seen) return true;
    // A change is seen at most about a tenth of the wait late: a chain of conflicts across machines waits little.
    const delay = lookDelay(Date.now() - started, FIRST_LOOK_MS, LONGEST_LOOK_MS);
    if (Date.now() + delay >= deadline) return false;
    await pause(delay, signal);
  }
  return false;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(finish, ms);
    function finish(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      done();
    }
    signal?.addEventListener('abort', finish, { once: true });
  });
}
