import { cellId, compareCells, maximalCells, type Cell } from '../../imerge/cell.js';

/**
 * Runs the check on a tree holding the resolutions of these cells and everything they are built
 * on (the maximal cells of a set: one cell's own tree, or several merged); true = passed, null =
 * no such tree can be made (the cells' merge conflicts).
 */
export type SetProbe = (cells: Cell[]) => Promise<boolean | null>;

export interface BisectResult {
  /** The resolutions isolated as bad (usually one); empty when no probe failed. */
  culprits: Cell[];
  /** Every probe run, in the order they finished: the maximal cells of the set checked, and its outcome. */
  probes: Array<{ cells: Cell[]; passed: boolean }>;
}

export interface BisectOptions {
  /** The failed check that started the bisect holds every suspect: the whole set is not checked again. */
  knownFailing?: boolean;
  /** Probes in flight at once, for checks that run elsewhere in parallel (CI runners); 1 (the default) = one after another. */
  width?: number;
}

/**
 * Find the bad resolution among resolved cells by checking trees that hold some of them.
 *
 * The suspects are kept in grid order, a linear extension of domination, so every prefix of them
 * is closed downwards: the tree of a prefix's maximal cells holds that prefix and no later
 * suspect. Each round checks `width` prefixes cut evenly through the suspects (without a known
 * failure, the whole set is one of them); the longest passing prefix below the shortest failing
 * one clears what it holds and bounds the rest. Width 1 is a binary search on the first half,
 * whether the cells form a chain or are independent (the blocked cells of one frontier): at most
 * ceil(log2 N) probes, plus one when `knownFailing` is not given; width w takes about
 * log(N) / log(w + 1) rounds. Where no probe of a round could narrow the suspects (their trees
 * cannot be made), the first suspect is checked alone, since one cell's tree always exists.
 * Assumes monotone failure: a tree containing a bad resolution fails the check.
 */
export async function bisect(
  resolved: readonly Cell[],
  probe: SetProbe,
  options: BisectOptions = {},
): Promise<BisectResult> {
  const width = Math.max(1, options.width ?? 1);
  const { run, probes } = memoisedProbe(probe);
  let known = options.knownFailing ?? false;
  let suspects = [...resolved].sort(compareCells);
  while (suspects.length > 1 || (!known && suspects.length === 1)) {
    const round = await probeRound(suspects, known, width, run);
    if (round === 'clear') return { culprits: [], probes };
    if (round !== null) {
      known = true;
      suspects = suspects.slice(round.lo, round.hi);
      continue;
    }
    const first = suspects.slice(0, 1);
    if ((await run(first)) === false) return { culprits: first, probes };
    suspects = suspects.slice(1);
  }
  return { culprits: suspects, probes };
}

/**
 * One round: check prefixes of the suspects at once and bound the culprit between the longest
 * passing prefix (`lo`) and the shortest failing one (`hi`). 'clear' when, without a known failure,
 * nothing failed; null when a known failure could not be narrowed.
 */
async function probeRound(
  suspects: Cell[],
  known: boolean,
  width: number,
  run: (cells: Cell[]) => Promise<boolean | null>,
): Promise<{ lo: number; hi: number } | 'clear' | null> {
  const n = suspects.length;
  const lengths = [...cuts(n, known ? width : width - 1), ...(known ? [] : [n])];
  const outcomes = await Promise.all(lengths.map((length) => run(suspects.slice(0, length))));
  const failing = lengths.filter((_, i) => outcomes[i] === false);
  if (!known && (outcomes[outcomes.length - 1] === true || failing.length === 0)) return 'clear';
  const hi = failing.length > 0 ? Math.min(...failing) : n;
  const lo = Math.max(0, ...lengths.filter((length, i) => outcomes[i] === true && length < hi));
  return known && hi - lo === n ? null : { lo, hi };
}

/** The probe, run once per set of maximal cells however often a round asks for it, recording each outcome. */
function memoisedProbe(probe: SetProbe): {
  run: (cells: Cell[]) => Promise<boolean | null>;
  probes: BisectResult['probes'];
} {
  const probes: BisectResult['probes'] = [];
  const seen = new Map<string, Promise<boolean | null>>();
  const run = (cells: Cell[]): Promise<boolean | null> => {
    const top = maximalCells(cells);
    const key = top.map(cellId).sort().join(' ');
    let pending = seen.get(key);
    if (pending === undefined) {
      pending = probe(top).then((passed) => {
        if (passed !== null) probes.push({ cells: top, passed });
        return passed;
      });
      seen.set(key, pending);
    }
    return pending;
  };
  return { run, probes };
}

/** Up to `k` distinct prefix lengths cut evenly through `n` suspects, each in [1, n - 1] (one cut: the first half). */
function cuts(n: number, k: number): number[] {
  const count = Math.min(k, n - 1);
  const lengths = new Set<number>();
  for (let j = 1; j <= count; j++) lengths.add(Math.min(n - 1, Math.ceil((j * n) / (count + 1))));
  return [...lengths];
}
