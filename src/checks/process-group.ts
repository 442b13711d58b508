import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** Send a signal to a whole process group; a group already gone is not an error. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

export function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Poll (bounded) until `alive` says no: SIGKILL is delivered asynchronously. */
export async function waitGone(alive: () => boolean, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A live process of the group is left. Zombies waiting for their reaper are dead and do not count (Linux /proc). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  return livePids((stat) => Number(stat[2]) === pgid).length > 0;
}

/** Live (non-zombie) processes in the pid namespace with this inode (a bubblewrap sandbox). */
export function namespaceMembers(pidNamespace: number): number[] {
  const link = `pid:[${pidNamespace}]`;
  return livePids((_, pid) => {
    try {
      return readlinkSync(`/proc/${pid}/ns/pid`) === link;
    } catch {
      return false;
    }
  });
}

/** Pids of live processes whose `/proc/PID/stat` fields after the command (state, ppid, pgrp, ...) pass `keep`. */
function livePids(keep: (fields: string[], pid: number) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && keep(fields, Number(entry))) found.push(Number(entry));
  }
  return found;
}
