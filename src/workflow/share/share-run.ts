import { UsageError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { listRemoteRefs } from '../../git/remote-refs.js';
import type { RunState } from '../../store/run-state.js';
import type { RunStore } from '../../store/run-store.js';
import type { RunEvent } from '../../store/run-events.js';
import type { RunShare } from './run-share.js';
import { machineName, writeShare } from './share-file.js';

/** The remote a run is shared through must answer now: a typo is said at once, not after the first conflict. */
export async function assertRemote(git: Git, remote: string): Promise<void> {
  if ((await listRemoteRefs(git, remote, ['refs/splintercat/*'], { timeoutMs: 30_000 })) !== null) return;
  const known = (await git.lines(['remote'])).filter(Boolean);
  throw new UsageError('share_remote_unreachable', {
    what: `The git remote '${remote}' cannot be reached`,
    why: known.length > 0 ? `This repository's remotes: ${known.join(', ')}` : 'This repository has no remote',
    fix: [
      `Check it with: git ls-remote ${remote}`,
      `Or add it first: git remote add ${remote} URL   (a bare repository everyone can push to)`,
    ],
  });
}

/** Mark run `name` as shared through `remote` (this clone's machine name kept beside it). */
export async function markShared(git: Git, store: RunStore, name: string, remote: string): Promise<void> {
  await assertRemote(git, remote);
  writeShare(store, name, { remote, machine: await machineName(git) });
}

/** A drive's progress listener (`ProgressListener` in merge-run.ts, which imports this file). */
type Listener = (state: RunState, event: RunEvent | null, replayed?: boolean) => void;

/** The progress listener of a drive, publishing the run after each saved state when it is shared. */
export function publishing(share: RunShare | null | undefined, listener?: Listener): Listener | undefined {
  if (!share) return listener;
  return (state: RunState, event, replayed) => {
    listener?.(state, event, replayed);
    if (event === null) share.schedule(state);
  };
}

/** After a drive: its last state published, and every publication waited for. */
export async function publishLast(share: RunShare | null | undefined, state: RunState): Promise<void> {
  if (!share) return;
  share.schedule(state, true);
  await share.flush();
}
