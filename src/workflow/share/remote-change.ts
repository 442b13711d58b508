import type { Git } from '../../git/index.js';
import { listRemoteRefs } from '../../git/remote-refs.js';

/** The first look after 250 ms, then each look half as late again, up to one every 5 s: prompt on a local remote, light on a hosted one. */
const FIRST_LOOK_MS = 250;
const LONGEST_LOOK_MS = 5_000;

/**
 * Wait until the refs of `remote` matching `patterns` differ from what they are now (a claim
 * released, a record added), until `deadline` (ms since the epoch) or `signal`. True when they
 * changed; false at the deadline, on abort, or when the remote cannot be read.
 */
export async function remoteChange(
  git: Git,
  remote: string,
  patterns: readonly string[],
  deadline: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const look = async (): Promise<string | null> => {
    const refs = await listRemoteRefs(git, remote, patterns);
    return refs === null ? null : [...refs].sort().join('\n');
  };
  const before = await look();
  if (before === null) return false;
  let delay = FIRST_LOOK_MS;
  while (!signal?.aborted && Date.now() + delay < deadline) {
    await pause(delay, signal);
    const now = await look();
    if (now === null) return false;
    if (now !== before) return true;
    delay = Math.min(LONGEST_LOOK_MS, Math.round(delay * 1.5));
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
