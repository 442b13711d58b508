/**
 * The terminal's view of a tall grid: the rows around the frontier (where the work is) rather than
 * every row. A fork sync of a thousand upstream commits has a thousand rows, of which a person needs
 * the few where conflicts block or the frontier's edge lies; the whole grid stays one flag away.
 */

/** Rows drawn at most around the frontier (each with a little context above and below). */
const DEFAULT_ROWS = 24;
/** Rows of context drawn either side of a row of interest. */
const CONTEXT = 2;

/** What the window drew: the text, and how many of the grid's rows it left out. */
export interface GridWindow {
  text: string;
  hidden: number;
}

/**
 * Of the laid-out diagram `full` (two header lines, one line per row j, then the tip lines) of
 * columns `cols`, the rows of interest with their context, the gaps said in one line each: rows
 * the first row (the fork's tip is named there), rows with a blocker (`#`) or a blamed check
 * (`X`), then those where the frontier's rectangles end (`-`, `+`), then the last; at most
 * `maxRows` rows in all.
 */
export function frontierWindow(cols: readonly (readonly string[])[], full: string, maxRows = DEFAULT_ROWS): GridWindow {
  const lines = full.split('\n');
  const len2 = cols[0]?.length ?? 0;
  if (len2 <= maxRows) return { text: full, hidden: 0 };
  const shown = pickRows(cols, len2, maxRows);
  const out = lines.slice(0, 2);
  let previous = -1;
  for (const j of [...shown].sort((a, b) => a - b)) {
    const line = lines[2 + j] ?? '';
    // The first row after a gap is labelled with its number, so every drawn stretch says where it is.
    if (j > previous + 1) out.push(gapLine(previous + 1, j - 1), `${String(j).padStart(4)} - ${line.slice(7)}`);
    else out.push(line);
    previous = j;
  }
  if (previous < len2 - 1) out.push(gapLine(previous + 1, len2 - 1));
  out.push(...lines.slice(2 + len2));
  return { text: out.join('\n'), hidden: len2 - shown.size };
}

function gapLine(from: number, to: number): string {
  const n = to - from + 1;
  return `       ~ ${n === 1 ? `row ${from}` : `rows ${from}-${to} (${n})`} not shown`;
}

/** The rows to draw, by priority, each with its context, until `maxRows` are chosen. */
function pickRows(cols: readonly (readonly string[])[], len2: number, maxRows: number): Set<number> {
  const rank = (ch: string): number => (ch === '#' || ch === 'X' ? 0 : ch === '-' || ch === '+' ? 1 : 2);
  const best = new Array<number>(len2).fill(2);
  for (let i = 1; i < cols.length; i++) {
    const col = cols[i] ?? [];
    for (let j = 1; j < len2; j++) best[j] = Math.min(best[j] as number, rank(col[j] ?? ''));
  }
  const byRank = (r: number): number[] => best.flatMap((b, j) => (b === r && j > 0 ? [j] : []));
  const chosen = new Set<number>();
  const add = (j: number): boolean => {
    for (let d = -CONTEXT; d <= CONTEXT; d++) {
      const row = j + d;
      if (row < 0 || row >= len2 || chosen.has(row)) continue;
      if (chosen.size >= maxRows) return false;
      chosen.add(row);
    }
    return true;
  };
  for (const j of [0, ...byRank(0), ...byRank(1), len2 - 1]) if (!add(j)) break;
  return chosen;
}
