import { compareCells, dominates, type Cell, cellId } from '../../imerge/cell.js';

/** Runs the check on the tree of one grid cell; true = passed. */
export type CellProbe = (cell: Cell) => Promise<boolean>;

export interface BisectResult {
  /** The resolutions isolated as bad (usually one); empty when no probe failed. */
  culprits: Cell[];
  /** Every probe run, in order, with its outcome. */
  probes: Array<{ cell: Cell; passed: boolean }>;
}

/**
 * Find the bad resolution among resolved cells by checking the cells in between.
 *
 * Checking cell c tests every resolution in the rectangle below c (c's tree embodies
 * them), so for resolutions along a chain this is a binary search: at most
 * ceil(log2 N) probes, plus one when `knownFailing` is not given. For cells that are
 * not totally ordered, a failing probe narrows the suspects to the resolutions it
 * contains that no passing probe contained, and the search repeats on them.
 * Assumes monotone failure: a tree containing a bad resolution fails the check.
 */
export async function bisectResolutions(
  resolved: readonly Cell[],
  probe: CellProbe,
  options: { knownFailing?: Cell } = {},
): Promise<BisectResult> {
  const probes: BisectResult['probes'] = [];
  const cache = new Map<string, boolean>();
  const run = async (cell: Cell): Promise<boolean> => {
    const key = cellId(cell);
    const known = cache.get(key);
    if (known !== undefined) return known;
    const passed = await probe(cell);
    cache.set(key, passed);
    probes.push({ cell, passed });
    return passed;
  };

  let suspects = [...resolved].sort(compareCells);
  if (suspects.length === 0) return { culprits: [], probes };
  const cleared = new Set<string>();

  // The known failing tree (the batch check that triggered the bisect) bounds the suspects.
  if (options.knownFailing) {
    const bound = options.knownFailing;
    suspects = suspects.filter((c) => dominates(bound, c));
  } else {
    const last = suspects[suspects.length - 1] as Cell;
    if (await run(last)) {
      // The latest resolution's cell passes: only resolutions outside its rectangle remain suspect.
      for (const c of suspects) if (dominates(last, c)) cleared.add(cellId(c));
      suspects = suspects.filter((c) => !cleared.has(cellId(c)));
      if (suspects.length === 0) return { culprits: [], probes };
    }
  }

  while (suspects.length > 1) {
    const mid = suspects[Math.floor((suspects.length - 1) / 2)] as Cell;
    const contained = suspects.filter((c) => dominates(mid, c));
    if (await run(mid)) {
      for (const c of contained) cleared.add(cellId(c));
      suspects = suspects.filter((c) => !cleared.has(cellId(c)));
    } else {
      // A linear extension puts every cell mid contains at or before mid, so this strictly shrinks.
      suspects = contained;
    }
  }
  return { culprits: suspects, probes };
}
