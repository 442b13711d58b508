import { cellId, compareCells, dominates, type Cell } from '../../imerge/cell.js';
import { bisectResolutions, type BisectResult, type CellProbe } from './bisect.js';

export interface BisectOptions {
  /** The failing check that started the bisect: only resolutions its tree holds are suspects. */
  knownFailing?: Cell;
  /** Probes in flight at once; 1 = the sequential binary search of bisect.ts. */
  width?: number;
}

/**
 * Bisect with up to `width` probes in flight at once, for checks that run elsewhere in parallel
 * (CI runners): each round checks `width` cells spread evenly through the suspects, so a chain of
 * N resolutions takes about log(N) / log(width + 1) rounds instead of log2(N) checks one after
 * another. A passing probe clears every suspect its tree holds; of the failing probes, the one
 * holding the fewest suspects left bounds them (a bad resolution is among them). The probes are
 * never the last suspect, which no earlier suspect's tree holds, so each round shrinks the
 * suspects. Assumes monotone failure, as the sequential search does; with `width` 1 it is that search.
 */
export async function bisect(
  resolved: readonly Cell[],
  probe: CellProbe,
  options: BisectOptions = {},
): Promise<BisectResult> {
  const width = options.width ?? 1;
  const known = options.knownFailing ? { knownFailing: options.knownFailing } : {};
  if (width <= 1) return bisectResolutions(resolved, probe, known);
  const probes: BisectResult['probes'] = [];
  const seen = new Map<string, Promise<boolean>>();
  const run = (cell: Cell): Promise<boolean> => {
    const key = cellId(cell);
    let pending = seen.get(key);
    if (pending === undefined) {
      pending = probe(cell).then((passed) => {
        probes.push({ cell, passed });
        return passed;
      });
      seen.set(key, pending);
    }
    return pending;
  };

  let suspects = [...resolved].sort(compareCells);
  if (options.knownFailing) suspects = suspects.filter((c) => dominates(options.knownFailing as Cell, c));
  // Without a known failure, the last resolution's cell is checked in the first round, as the sequential search does.
  let first = !options.knownFailing;
  while (suspects.length > 1 || (first && suspects.length === 1)) {
    const candidates = spread(suspects, first ? width - 1 : width);
    if (first) candidates.push(suspects[suspects.length - 1] as Cell);
    first = false;
    const outcomes = await Promise.all(candidates.map(run));
    suspects = narrow(suspects, candidates, outcomes);
  }
  return { culprits: suspects, probes };
}

/** Up to `k` distinct suspects at even steps through them, never the last one. */
function spread(suspects: Cell[], k: number): Cell[] {
  const n = suspects.length;
  const count = Math.min(k, n - 1);
  const picks = new Set<number>();
  for (let j = 1; j <= count; j++) picks.add(Math.floor((j * (n - 1)) / (count + 1)));
  return [...picks].map((i) => suspects[i] as Cell);
}

/** The suspects left after one round: passing probes clear what they hold; the smallest failing probe bounds the rest. */
function narrow(suspects: Cell[], candidates: Cell[], outcomes: boolean[]): Cell[] {
  const passing = candidates.filter((_, i) => outcomes[i]);
  const left = suspects.filter((s) => !passing.some((p) => dominates(p, s)));
  const failing = candidates.filter((_, i) => !outcomes[i]).map((f) => left.filter((s) => dominates(f, s)));
  if (failing.length === 0) return left;
  return failing.reduce((best, set) => (set.length < best.length ? set : best));
}
