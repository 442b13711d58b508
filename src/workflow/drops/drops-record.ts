import type { FileDrops } from '../../store/drops-state.js';
import type { ConflictFileState, RunState } from '../../store/run-state.js';
import { printableName } from '../../util/safe-print.js';
import { decidedBy, dropReason } from './drop-reason.js';
import { lossWords, SIDE_NAMES } from './drop-text.js';

/** At most this many files are named in the commit message; the note has them all. */
const MESSAGE_FILES = 40;

/** Each conflicted file's record, by path, over every cell it conflicted at (the last resolution first). */
function filesByPath(state: RunState): Map<string, Array<{ cell: string; file: ConflictFileState }>> {
  const out = new Map<string, Array<{ cell: string; file: ConflictFileState }>>();
  for (const c of state.conflicts)
    for (const f of c.files) out.set(f.path, [{ cell: c.id, file: f }, ...(out.get(f.path) ?? [])]);
  return out;
}

function countWords(drops: FileDrops): string {
  if (drops.skipped) return `not audited (${drops.skipped})`;
  return (['ours', 'theirs'] as const)
    .flatMap((side) => (drops[side] ? [lossWords(drops[side], SIDE_NAMES[side])] : []))
    .join('; ');
}

/**
 * The merge commit's "What the merge dropped" section: per file, a count of the lines of each side
 * the merge lost, and who decided it; a resolution with no recorded reason says so. Empty when
 * nothing was dropped. The lines themselves are in the note.
 */
export function dropsMessageLines(state: RunState): string[] {
  const byPath = filesByPath(state);
  const final = state.finalDrops;
  const entries = final
    ? final.files.map((f) => ({ path: f.path, drops: f.drops }))
    : [...byPath].flatMap(([path, [last]]) => (last?.file.drops ? [{ path, drops: last.file.drops }] : []));
  if (entries.length === 0) return [];
  const lines = entries.slice(0, MESSAGE_FILES).map(({ path, drops }) => {
    const record = byPath.get(path)?.[0];
    const who = record
      ? ` [cell ${record.cell}, ${decidedBy(record.file)}${dropReason(record.file) === null ? ', no recorded reason' : ''}]`
      : ' [git]';
    return `    ${printableName(path)}: ${countWords(drops)}${who}`;
  });
  const more = entries.length - lines.length;
  return [
    '',
    'What the merge dropped:',
    ...lines,
    ...(more > 0 ? [`    … and ${more} more file(s), in the note`] : []),
  ];
}

/** The note's record of the drops: per resolved cell and file (with who decided and the reason), and the whole merge's. */
export function dropsNote(state: RunState): Record<string, unknown> {
  const cells = state.conflicts.flatMap((c) =>
    c.files.flatMap((f) =>
      f.drops ? [{ conflict: c.id, path: f.path, decidedBy: decidedBy(f), reason: dropReason(f), ...f.drops }] : [],
    ),
  );
  return { cells, final: state.finalDrops ?? null };
}
