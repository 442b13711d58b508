import type { FileDrops, SideDrops } from '../../store/drops-state.js';
import { printableLine, printableName } from '../../util/safe-print.js';
import { lostCount } from './file-drops.js';

/** The sides as a person reads them. */
export const SIDE_NAMES = { ours: 'the fork', theirs: 'upstream' } as const;

/** At most this many of a side's lines are quoted in one message. */
const QUOTED_LINES = 3;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** What a side lost, in words: `drops 2 lines the fork added, brings back 1 line it removed`. */
export function lossWords(side: SideDrops, who: string): string {
  if (side.file === 'deletion-undone') return `keeps the file ${who} deleted (${plural(side.restored, 'line')})`;
  const parts = [
    side.dropped > 0 ? `drops ${plural(side.dropped, 'line')} ${who} added` : null,
    side.rewritten > 0 ? `rewrites ${plural(side.rewritten, 'line')} ${who} added` : null,
    side.restored > 0 ? `brings back ${plural(side.restored, 'line')} ${who} removed` : null,
  ].filter((p) => p !== null);
  return `${side.file === 'file-deleted' ? 'deletes the file: ' : ''}${parts.join(', ')}`;
}

/** The first lines lost, quoted, each one printable line (upstream chose them: they can hold anything). */
function quoted(side: SideDrops): string[] {
  const shown = side.lines.slice(0, QUOTED_LINES).map((l) => `    ${l.kind} ${l.line}: ${printableLine(l.text)}`);
  const more = lostCount(side) - shown.length;
  return more > 0 ? [...shown, `    … and ${more} more`] : shown;
}

/**
 * The lines a person reads about a resolution's losses before it is checked, per side:
 * "your resolution of `lib/router.js` drops 2 lines the fork added:", then the lines.
 */
export function dropMessages(path: string, drops: FileDrops | undefined, whose = 'your resolution'): string[] {
  if (!drops) return [];
  if (drops.skipped) return [`${whose} of \`${printableName(path)}\` was not audited for drops (${drops.skipped})`];
  return (['ours', 'theirs'] as const).flatMap((side) => {
    const lost = drops[side];
    if (!lost) return [];
    return [`${whose} of \`${printableName(path)}\` ${lossWords(lost, SIDE_NAMES[side])}:`, ...quoted(lost)];
  });
}
