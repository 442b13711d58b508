import { spawnSync } from 'node:child_process';

/** A line of a side's change a resolution lost, as the merge note lists it. */
interface NoteLine {
  kind: 'dropped' | 'restored' | 'rewritten';
  text: string;
}

interface NoteSide {
  dropped: number;
  restored: number;
  rewritten: number;
  lines: NoteLine[];
}

interface NoteCell {
  conflict: string;
  path: string;
  decidedBy: string;
  ours?: NoteSide;
  theirs?: NoteSide;
}

/** What the resolutions of one merge lost of one side, and how much of it the maintainer's merge lost too. */
interface SideDropsTally {
  /** Resolved files (a file at a cell) that lost lines of this side. */
  resolutions: number;
  /** The lines they lost (dropped, brought back, rewritten), as counted by the audit. */
  lines: number;
  /** Of the lines the note lists, those the maintainer's merge lost as well. */
  listed: number;
  alsoByMaintainer: number;
  /** Who decided the resolutions that lost lines the maintainer kept. */
  notByMaintainer: Record<string, number>;
}

export interface DropsTally {
  fork: SideDropsTally;
  upstream: SideDropsTally;
}

function emptySide(): SideDropsTally {
  return { resolutions: 0, lines: 0, listed: 0, alsoByMaintainer: 0, notByMaintainer: {} };
}

/** The maintainer's file at `path` as a set of trimmed lines, or null where the merge has no such file. */
function maintainerLines(repo: string, env: NodeJS.ProcessEnv, merge: string, path: string): Set<string> | null {
  const run = spawnSync('git', ['cat-file', 'blob', `${merge}:${path}`], {
    cwd: repo,
    env,
    encoding: 'latin1',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) return null;
  return new Set(run.stdout.split('\n').map((l) => l.trim()));
}

/**
 * The survival audit of a finished journey set against the maintainer's own merge: for each side,
 * how many resolutions lost lines of it, and of the lines the note lists, how many the maintainer's
 * merge lost too (a dropped or rewritten line absent from the maintainer's file; a restored line
 * present in it). A line the maintainer kept and a resolution lost is a drop the person did not make.
 */
export function dropsAgainstMaintainer(
  repo: string,
  env: NodeJS.ProcessEnv,
  note: { drops?: { cells?: NoteCell[] } },
  merge: string,
): DropsTally {
  const tally: DropsTally = { fork: emptySide(), upstream: emptySide() };
  const files = new Map<string, Set<string> | null>();
  for (const cell of note.drops?.cells ?? []) {
    const theirs = files.get(cell.path) ?? maintainerLines(repo, env, merge, cell.path);
    files.set(cell.path, theirs);
    for (const [side, lost] of [
      ['fork', cell.ours],
      ['upstream', cell.theirs],
    ] as const) {
      if (!lost) continue;
      const t = tally[side];
      t.resolutions++;
      t.lines += lost.dropped + lost.restored + lost.rewritten;
      let kept = 0;
      for (const line of lost.lines) {
        t.listed++;
        const present = theirs?.has(line.text.trim()) ?? false;
        const maintainerLost = line.kind === 'restored' ? present : !present;
        if (maintainerLost) t.alsoByMaintainer++;
        else kept++;
      }
      if (kept > 0) t.notByMaintainer[cell.decidedBy] = (t.notByMaintainer[cell.decidedBy] ?? 0) + kept;
    }
  }
  return tally;
}

/** One line of the closing note's table: `fork: 3 resolution(s), 12 line(s) lost, 10 of 12 listed also by the maintainer`. */
export function dropsLine(t: DropsTally): string {
  const side = (name: string, s: SideDropsTally): string => {
    const not = Object.entries(s.notByMaintainer)
      .map(([who, n]) => `${n} by ${who}`)
      .join(', ');
    return `${name}: ${s.resolutions} resolution(s), ${s.lines} line(s) lost, ${s.alsoByMaintainer} of ${s.listed} listed also lost by the maintainer${not ? ` (kept by the maintainer: ${not})` : ''}`;
  };
  return `${side('fork', t.fork)}; ${side('upstream', t.upstream)}`;
}
