import { spawnSync, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { namespaceMembers } from './process-group.js';
import { viewArgs, type SandboxView } from './sandbox-view.js';

/** What bubblewrap shows, lets write and reach for one run. */
export interface SandboxSpec extends SandboxView {
  /** The fd bubblewrap reports its child pid and namespaces on (`--info-fd`). */
  infoFd?: number;
}

/**
 * The bubblewrap command line for one run: only what the check needs of the filesystem
 * (sandbox-view.ts: the system directories, the toolchain and `check.readable` read-only, its
 * worktree and `check.writable` writable, an empty HOME and /tmp, the worktree's `.git`
 * read-only), no network unless asked, its own pid namespace (killing bwrap kills everything
 * inside), a new session (no terminal to inject into), and death with splintercat.
 */
export function bwrapArgs(spec: SandboxSpec): string[] {
  const args = [...viewArgs(spec), '--remount-ro', '/'];
  if (!spec.network) args.push('--unshare-net');
  args.push('--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session', '--chdir', spec.cwd);
  if (spec.infoFd !== undefined) args.push('--info-fd', String(spec.infoFd));
  return args;
}

export type BwrapProbe = { ok: true } | { ok: false; reason: string };

let probed: BwrapProbe | undefined;

/**
 * Whether bubblewrap is installed and can build the sandbox here (user namespaces may be
 * disabled, e.g. in some containers). Probed once per process with the real options.
 */
export function probeBwrap(): BwrapProbe {
  probed ??= runBwrapProbe(process.env);
  return probed;
}

/** Try the sandbox once, with this environment's PATH (not memoized). */
export function runBwrapProbe(env: NodeJS.ProcessEnv): BwrapProbe {
  const result = spawnSync(
    'bwrap',
    [...bwrapArgs({ cwd: '/tmp', writable: [], readable: [], network: false }), '--', '/bin/sh', '-c', 'exit 0'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 10_000,
      encoding: 'utf8',
    },
  );
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason:
        code === 'ENOENT' ? 'bwrap is not installed (not on PATH)' : `bwrap could not start: ${result.error.message}`,
    };
  }
  if (result.status !== 0)
    return {
      ok: false,
      reason: `bwrap fails here: ${result.stderr.trim().split('\n')[0] || `exit ${result.status ?? result.signal}`}`,
    };
  return { ok: true };
}

/** What bubblewrap reports on its info fd: the sandbox's init (host pid) and pid namespace. */
export function sandboxInfo(child: ChildProcess): { childPid: number | undefined; members: () => number[] } {
  let text = '';
  const info: { childPid: number | undefined; namespace: number | undefined } = {
    childPid: undefined,
    namespace: undefined,
  };
  const fd = child.stdio[3] as Readable | null;
  fd?.setEncoding('utf8');
  fd?.on('data', (chunk: string) => {
    text += chunk;
    try {
      const parsed = JSON.parse(text) as { 'child-pid'?: number; 'pid-namespace'?: number };
      info.childPid = parsed['child-pid'];
      info.namespace = parsed['pid-namespace'];
    } catch {
      // not complete yet
    }
  });
  fd?.on('error', () => {});
  return {
    get childPid() {
      return info.childPid;
    },
    members: () => (info.namespace === undefined ? [] : namespaceMembers(info.namespace)),
  };
}
