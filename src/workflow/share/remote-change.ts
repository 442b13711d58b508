import type { Git } from '../../git/index.js';
import { listRemoteRefs } from '../../git/remote-refs.js';

/** The first look after 250 ms, then each look half as late again, up to one every 5 s: prompt on a local remote, light on a hosted one. */
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
  let delay = 0;
  while (!signal?.aborted) {
    const refs = await listRemoteRefs(git, remote, patterns);
    if (refs === null) return false;
    if ([...refs].sort().join('\n') !== seen) return true;
    delay = Math.min(LONGEST_LOOK_MS, delay === 0 ? FIRST_LOOK_MS : Math.round(delay * 1.5));
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
