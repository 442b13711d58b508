import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { groupAlive, signalGroup, waitGone } from './process-group.js';

/** The variable every check process carries, so a leftover group is recognised as ours before it is killed. */
export const CHECK_TAG_VARIABLE = 'SPLINTERCAT_CHECK_RUN';

/** One check process group that was running. */
export interface RunningCheck {
  /** The process group (the shell's or bubblewrap's pid). */
  pgid: number;
  /** The value of `SPLINTERCAT_CHECK_RUN` in its environment. */
  tag: string;
  name: string;
  startedAt: string;
}

/**
 * The checks a run has running, in a small file of its run directory, written before a check
 * starts and cleared when it ends. A check outlives a splintercat killed with -9 (it has its
 * own process group, and unsandboxed nothing ties it to its parent): the next `continue` or
 * `abort` reads this file and ends such leftovers before anything else starts in their worktree.
 */
export class CheckRegistry {
  constructor(readonly path: string) {}

  /** A fresh tag for a check about to start. */
  newTag(): string {
    return randomBytes(8).toString('hex');
  }

  add(entry: RunningCheck): void {
    this.write([...this.read().filter((e) => e.pgid !== entry.pgid), entry]);
  }

  remove(pgid: number): void {
    const kept = this.read().filter((e) => e.pgid !== pgid);
    this.write(kept);
  }

  read(): RunningCheck[] {
    if (!existsSync(this.path)) return [];
    try {
      const value: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      return Array.isArray(value) ? value.filter(isEntry) : [];
    } catch {
      return [];
    }
  }

  /**
   * End every recorded check group still alive whose processes carry its tag (a pid reused by
   * another program is left alone): SIGTERM, then SIGKILL after `graceMs`. Returns what was
   * ended, one line each; the file is cleared.
   */
  async killLeftovers(graceMs = 2000): Promise<string[]> {
    const ended: string[] = [];
    for (const entry of this.read()) {
      if (!groupAlive(entry.pgid) || !carriesTag(entry.pgid, entry.tag)) continue;
      signalGroup(entry.pgid, 'SIGTERM');
      await waitGone(() => groupAlive(entry.pgid), graceMs);
      if (groupAlive(entry.pgid)) {
        signalGroup(entry.pgid, 'SIGKILL');
        await waitGone(() => groupAlive(entry.pgid), 2000);
      }
      ended.push(`check '${entry.name}' (process group ${entry.pgid}, started ${entry.startedAt})`);
    }
    this.write([]);
    return ended;
  }

  private write(entries: RunningCheck[]): void {
    if (entries.length === 0 && !existsSync(this.path)) return;
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.tmp-${process.pid}`;
    writeFileSync(temp, `${JSON.stringify(entries)}\n`);
    renameSync(temp, this.path);
  }
}

function isEntry(value: unknown): value is RunningCheck {
  const e = value as RunningCheck;
  return (
    typeof e === 'object' &&
    e !== null &&
    Number.isInteger(e.pgid) &&
    e.pgid > 1 &&
    typeof e.tag === 'string' &&
    typeof e.name === 'string'
  );
}

/** Does the process `pid` carry `SPLINTERCAT_CHECK_RUN=tag` in its environment (Linux /proc)? */
function carriesTag(pid: number, tag: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${CHECK_TAG_VARIABLE}=${tag}`);
  } catch {
    return false;
  }
}
