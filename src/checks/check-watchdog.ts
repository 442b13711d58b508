import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { groupAlive, signalGroup, signalPid, waitGone } from './process-group.js';
import { delay, ended } from './relay-output.js';
import type { sandboxInfo } from './sandbox.js';

/**
 * The check's timeout and its abort: SIGTERM to the group (or, in the sandbox, to the processes
 * inside: bwrap would die at once and take them along), SIGKILL after the grace period.
 */
export function watchdog(
  child: ChildProcess,
  sandbox: ReturnType<typeof sandboxInfo> | null,
  abort: AbortSignal | undefined,
  options: { timeoutSec: number; killGraceSec: number },
): { timedOut: () => boolean; stop: () => Promise<void> } {
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const kill = (): void => {
    signalGroup(child.pid, 'SIGKILL');
    // Killing the namespace's init kills every process in the sandbox.
    if (sandbox?.childPid !== undefined && sandbox.members().includes(sandbox.childPid))
      signalPid(sandbox.childPid, 'SIGKILL');
  };
  const terminate = (): void => {
    const inside = sandbox?.members().filter((pid) => pid !== sandbox.childPid) ?? [];
    if (inside.length > 0) for (const pid of inside) signalPid(pid, 'SIGTERM');
    else signalGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(kill, options.killGraceSec * 1000);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, options.timeoutSec * 1000);
  const onAbort = (): void => terminate();
  if (abort?.aborted) terminate();
  abort?.addEventListener('abort', onAbort, { once: true });
  return {
    timedOut: () => timedOut,
    // The shell is gone; make sure nothing it started lingers (background jobs, grandchildren),
    // and return only once all of it is gone, so no caller ever sees a survivor.
    stop: async () => {
      clearTimeout(timer);
      abort?.removeEventListener('abort', onAbort);
      kill();
      if (killTimer) clearTimeout(killTimer);
      await waitGone(
        () => (child.pid !== undefined && groupAlive(child.pid)) || (sandbox !== null && sandbox.members().length > 0),
        2000,
      );
    },
  };
}

/** Wait for the output pipes to end, then close them: a process that left the group (setsid) may still hold one, and is not waited for. */
export async function closePipes(child: ChildProcess): Promise<void> {
  await Promise.race([
    Promise.all([child.stdout, child.stderr].map((stream) => ended(stream as Readable))),
    delay(1000),
  ]);
  child.stdout?.destroy();
  child.stderr?.destroy();
}
