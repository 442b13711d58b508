/**
 * Which hunk of a conflicted file, as it is now, is which hunk it was handed over with. Hunks are
 * never reordered by settling others (a take replaces a hunk in place), so the hunks still open are
 * an ordered subsequence of those handed over: they are aligned in order, a hunk matching only one
 * handed over with the same two sides and not taken yet. Where several such hunks have the same sides
 * (four identical `uses:` lines), the lines around each, recorded at the hand-off, tell them apart.
 */

/** The lines around a hunk, within the gaps to its neighbours: at most this many on each side. */
const CONTEXT_LINES = 3;
/** A context longer than this is cut: it only has to tell identical hunks apart. */
const CONTEXT_CHARS = 600;

export interface HunkContext {
  before: string;
  after: string;
}

/** A hunk as recorded: its sides' identity, whether a take settled it, and the lines around it when known. */
export interface RecordedHunk {
  key: string;
  taken?: boolean;
  before?: string;
  after?: string;
}

/** A hunk as it is in the file now. */
export interface CurrentHunk extends HunkContext {
  key: string;
}

/**
 * The lines before and after each hunk (in file order, 1-based marker lines), never reaching into
 * a neighbouring hunk. `text` is the file decoded byte for byte (latin1), so every reader agrees.
 */
export function hunkContexts(
  text: string,
  hunks: ReadonlyArray<{ startLine: number; endLine: number }>,
): HunkContext[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  return hunks.map((b, i) => {
    const previousEnd = i > 0 ? (hunks[i - 1]?.endLine ?? 0) : 0;
    const nextStart = hunks[i + 1]?.startLine ?? Number.POSITIVE_INFINITY;
    const before = lines.slice(Math.max(previousEnd, b.startLine - 1 - CONTEXT_LINES), b.startLine - 1);
    const after = lines.slice(b.endLine, Math.min(nextStart - 1, b.endLine + CONTEXT_LINES));
    return { before: before.join('\n').slice(-CONTEXT_CHARS), after: after.join('\n').slice(0, CONTEXT_CHARS) };
  });
}

/**
 * Whether two contexts of one side agree: equal, or one the end (before) or start (after) of the
 * other, since a neighbour taken since leaves more text in the gap than there was.
 */
function agree(recorded: string | undefined, now: string, side: 'before' | 'after'): boolean {
  if (recorded === undefined) return false;
  if (recorded === now) return true;
  const holds = (long: string, short: string): boolean =>
    short !== '' && (side === 'before' ? long.endsWith(short) : long.startsWith(short));
  return holds(now, recorded) || holds(recorded, now);
}

/**
 * How well a current hunk is a recorded one (null: it is not). A hunk taken is open again only
 * where it is back as it was, its lines around it too (the merge done again, `git checkout -m`),
 * and then weighs less than any hunk not taken, so it never takes the place of an open one.
 */
function score(r: RecordedHunk, c: CurrentHunk): number | null {
  if (r.key !== c.key) return null;
  const context = (agree(r.before, c.before, 'before') ? 1 : 0) + (agree(r.after, c.after, 'after') ? 1 : 0);
  if (r.taken === true) return context === 2 ? 3 : null;
  return 4 + context;
}

/** One step of the alignment, in file order: a recorded hunk matched, a recorded one gone, or a new one. */
export type AlignStep =
  | { kind: 'match'; recorded: number; current: number }
  | { kind: 'gone'; recorded: number }
  | { kind: 'new'; current: number };

/**
 * The best order-keeping alignment of the recorded hunks to the current ones (the most matches,
 * then the most agreeing contexts), as steps in file order.
 */
export function alignHunks(recorded: readonly RecordedHunk[], current: readonly CurrentHunk[]): AlignStep[] {
  const m = recorded.length;
  const n = current.length;
  const best: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(0));
  for (let i = 1; i <= m; i++)
    for (let j = 1; j <= n; j++) {
      const s = score(recorded[i - 1] as RecordedHunk, current[j - 1] as CurrentHunk);
      const row = best[i] as number[];
      const up = best[i - 1] as number[];
      row[j] = Math.max(up[j] as number, row[j - 1] as number, s === null ? -1 : (up[j - 1] as number) + s);
    }
  const steps: AlignStep[] = [];
  let i = m;
  let j = n;
  while (i > 0 || j > 0) {
    const here = best[i]?.[j] as number;
    const s = i > 0 && j > 0 ? score(recorded[i - 1] as RecordedHunk, current[j - 1] as CurrentHunk) : null;
    if (s !== null && here === (best[i - 1]?.[j - 1] as number) + s) {
      steps.push({ kind: 'match', recorded: --i, current: --j });
    } else if (i > 0 && (j === 0 || here === best[i - 1]?.[j])) {
      steps.push({ kind: 'gone', recorded: --i });
    } else {
      steps.push({ kind: 'new', current: --j });
    }
  }
  return steps.reverse();
}
