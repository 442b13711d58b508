import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { printableName } from '../util/safe-print.js';
import { defaultWorktreesDir } from '../config/index.js';
import { storedCheckLogDir } from '../config/old-keys.js';
import type { Replay } from './journal-replay.js';
import type { RunState } from './run-state.js';

/** The run's identity as far as where its files live: its name, its directory, its configuration. */
type RunIdentity = Pick<RunState, 'name' | 'workdir' | 'config'>;

/**
 * The journal's last hand-off when every path it names (its worktrees, files, where to work) is
 * inside one of `dirs` (the run's directory, its worktree directory), else null: a hand-off into
 * another directory would send `continue` to take and reset someone else's files.
 */
export function ownHandoff(handoff: Replay['handoff'], dirs: string[], actions: string[]): Replay['handoff'] {
  if (handoff === null) return null;
  const paths = [
    ...handoff.files,
    ...(handoff.where ? [handoff.where] : []),
    ...handoff.conflicts.map((c) => c.worktree),
  ];
  const outside = paths.find((p) => !dirs.some((dir) => isInside(p, dir)));
  if (outside === undefined) return handoff;
  actions.push(
    `the hand-off of the journal is dropped: it names ${printableName(outside)}, outside this run's directories`,
  );
  return null;
}

/**
 * A filter keeping what was logged in this run's own directories (its workdir, its check logs'):
 * a check whose log is elsewhere ran on another clone (a journal copied from it), so neither its
 * outcome nor its file is this run's. What it drops is said once in `actions`.
 */
export function ownLogs(
  identity: RunIdentity,
  actions: string[],
): <T extends { logFile: string }>(items: T[], what?: string) => T[] {
  const logs = storedCheckLogDir(identity.config?.values);
  const dirs = [identity.workdir, ...(typeof logs === 'string' ? [logs] : [])];
  return (items, what) => {
    const kept = items.filter((item) => dirs.some((dir) => isInside(item.logFile, dir)));
    if (what !== undefined && kept.length < items.length)
      actions.push(`${items.length - kept.length} ${what} logged outside this run's directories are dropped`);
    return kept;
  };
}

/** Where the run's own configuration puts its worktrees (workflow/worktrees.ts runWorktreesDir, without its legacy place). */
export function worktreesOf(identity: RunIdentity): string {
  const merge = (identity.config?.values.merge ?? {}) as { worktrees?: unknown };
  const dir = typeof merge.worktrees === 'string' && merge.worktrees !== '' ? merge.worktrees : null;
  return resolve(dir ?? defaultWorktreesDir(resolve(identity.workdir)), identity.name);
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(realOr(dir), realOr(resolve(dir, path)));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export function sameDir(a: string, b: string): boolean {
  return realOr(a) === realOr(b);
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended. */
function realOr(path: string): string {
  const full = resolve(path);
  try {
    return realpathSync(full);
  } catch {
    const parent = dirname(full);
    return parent === full ? full : join(realOr(parent), basename(full));
  }
}
