/**
 * How a check's process starts: `sh -c COMMAND` in its own process group, unconfined or inside
 * bubblewrap with the directories it may write and read.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { ConfigError, SplintercatError } from '../errors/index.js';
import { bwrapArgs } from './sandbox.js';

/** What a sandboxed check may see besides its worktree and the system. */
export interface SandboxView {
  /** Directories it may write (created before it starts). */
  writable: string[];
  /** Paths it may read: the toolchain on PATH and `check.readable`. */
  readable: string[];
  /** Directories shown empty to it (the log directory, when inside its worktree). */
  hidden: string[];
  home: string | undefined;
}

/** Start `sh -c command` in `cwd`, in its own process group: in bubblewrap as `sandbox` says, or unconfined (null). */
export function spawnCheck(
  launch: { command: string; cwd: string; network: boolean },
  env: Record<string, string>,
  sandbox: SandboxView | null,
): ChildProcess {
  const { cwd } = launch;
  if (sandbox === null)
    return spawn('/bin/sh', ['-c', launch.command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const args = bwrapArgs({ cwd, ...sandbox, network: launch.network, infoFd: 3 });
  return spawn('bwrap', [...args, '--', '/bin/sh', '-c', launch.command], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
}

/** The directories a check may write besides its worktree (created; the build directory even unsandboxed). */
export function writableDirs(configured: readonly string[], buildDir: string | null, sandboxed: boolean): string[] {
  const writable = [...configured, ...(buildDir ? [buildDir] : [])];
  if (sandboxed) for (const dir of writable) makeWritableDir(dir);
  else if (buildDir) makeWritableDir(buildDir);
  return writable;
}

/** A directory bound writable into the sandbox must exist; `check.writable` ones are created. */
function makeWritableDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new SplintercatError('check_writable_dir', {
      what: `Cannot create ${dir}, a directory checks may write (check.writable or log.dir)`,
      why: (error as Error).message,
      fix: 'Create it by hand, or remove it from check.writable in splintercat.yaml',
      cause: error,
    });
  }
}

/**
 * Logs are read back after a check: they must be where no check can write. Inside its worktree they
 * are hidden from it (a directory of its own); the worktree itself or a directory holding it cannot be.
 */
export function assertLogsOutOfReach(outputDir: string, writable: readonly string[]): void {
  const logs = resolve(outputDir);
  const inside = writable.map((dir) => resolve(dir)).find((dir) => logs === dir || dir.startsWith(`${logs}${sep}`));
  if (inside === undefined) return;
  throw new ConfigError([{ path: 'log.dir', message: `inside ${inside}, which checks may write` }], undefined, {
    what: `log.dir (${outputDir}) is inside ${inside}, a directory checks may write`,
    why: 'A check could replace its own log with a link to a secret, which splintercat would read back and publish',
    fix: 'Set log.dir outside the worktrees and the check.writable directories (the default is .splintercat/logs in the main checkout)',
    where: 'splintercat.yaml (log.dir)',
  });
}
