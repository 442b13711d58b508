import type { FileDrops } from '../store/drops-state.js';
import type { ConflictFileState, RunState } from '../store/run-state.js';
import type { Side } from '../store/side.js';
import { decidedBy, dropReason, lossWords, lostCount, SIDE_NAMES } from '../workflow/drops/index.js';
import type { DropFileView, DropsView } from './model.js';

/** The key a side's drops are stored under: the audit's, which are git's words for the sides. */
const STORED_SIDE = { fork: 'ours', upstream: 'theirs' } as const satisfies Record<Side, 'ours' | 'theirs'>;

/** The last resolution of each conflicted path (a path may conflict at several cells). */
function lastResolutions(state: RunState): Map<string, { cell: string; file: ConflictFileState }> {
  const out = new Map<string, { cell: string; file: ConflictFileState }>();
  for (const c of state.conflicts) for (const f of c.files) out.set(f.path, { cell: c.id, file: f });
  return out;
}

function fileView(
  path: string,
  side: Side,
  drops: FileDrops,
  decided: { cell: string; file: ConflictFileState } | undefined,
): DropFileView[] {
  const lost = drops[STORED_SIDE[side]];
  if (!lost) return [];
  return [
    {
      path,
      cell: decided?.cell ?? null,
      decidedBy: decided ? decidedBy(decided.file) : 'git (merged cleanly)',
      reason: decided ? dropReason(decided.file) : 'merged cleanly by git',
      words: lossWords(lost, SIDE_NAMES[STORED_SIDE[side]]),
      lost: lostCount(lost),
      lines: lost.lines,
    },
  ];
}

/**
 * "What the merge dropped", per side: the whole merge's audit (fork and upstream deltas against the
 * result) once the merge is made, else each resolution's; each file with who decided it and the
 * recorded reason, or none (flagged).
 */
export function buildDrops(state: RunState): DropsView {
  const decided = lastResolutions(state);
  const entries = state.finalDrops
    ? state.finalDrops.files
    : [...decided].flatMap(([path, d]) => (d.file.drops ? [{ path, drops: d.file.drops }] : []));
  const side = (s: Side): DropFileView[] => entries.flatMap((e) => fileView(e.path, s, e.drops, decided.get(e.path)));
  const fork = side('fork');
  const upstream = side('upstream');
  const flagged = new Set([...fork, ...upstream].filter((f) => f.reason === null).map((f) => f.path));
  const skipped = entries.filter((e) => e.drops.skipped).length;
  return {
    source: state.finalDrops ? 'final' : 'resolutions',
    fork,
    upstream,
    unreasoned: flagged.size,
    notAudited: skipped + (state.finalDrops?.notAudited ?? 0),
  };
}
