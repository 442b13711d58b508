import { cellId, compareCells, maximalCells, type Cell } from '../../imerge/cell.js';
import { bisectResolutions, type BisectResult, type SetProbe } from './bisect.js';

export interface BisectOptions {
  /** The failed check that started the bisect holds every suspect: the whole set is not checked again. */
  knownFailing?: boolean;
  /** Probes in flight at once; 1 = the sequential binary search of bisect.ts. */
  width?: number;
}

/**
 * Bisect with up to `width` probes in flight at once, for checks that run elsewhere in parallel
 * (CI runners). As in bisect.ts the suspects are kept in grid order, so each prefix's tree holds
 * that prefix and no later suspect; each round checks `width` prefixes cut evenly through the
 * suspects. The longest passing prefix below the shortest failing one clears what it holds and
 * bounds the rest, so N suspects take about log(N) / log(width + 1) rounds instead of log2(N)
 * checks one after another. Where no probe of a round could narrow them (their trees cannot be
 * made), the sequential search takes over. Assumes monotone failure, as the sequential search does.
 */
export async function bisect(
  resolved: readonly Cell[],
  probe: SetProbe,
  options: BisectOptions = {},
): Promise<BisectResult> {
  const width = options.width ?? 1;
  let known = options.knownFailing ?? false;
  if (width <= 1) return bisectResolutions(resolved, probe, { knownFailing: known });
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

  let suspects = [...resolved].sort(compareCells);
  while (suspects.length > 1 || (!known && suspects.length === 1)) {
    // Without a known failure the whole set is one of the first round's probes.
    const lengths = [...cuts(suspects.length, known ? width : width - 1), ...(known ? [] : [suspects.length])];
    const outcomes = await Promise.all(lengths.map((n) => run(suspects.slice(0, n))));
    const failing = lengths.filter((_, i) => outcomes[i] === false);
    if (!known && outcomes[outcomes.length - 1] === true) return { culprits: [], probes };
    const hi = failing.length > 0 ? Math.min(...failing) : known ? suspects.length : null;
    const lo = Math.max(0, ...lengths.filter((n, i) => outcomes[i] === true && (hi === null || n < hi)));
    const narrowed = hi !== null && hi - lo < suspects.length;
    if (hi === null || (known && !narrowed)) {
      const rest = await bisectResolutions(suspects, probe, { knownFailing: hi !== null });
      return { culprits: rest.culprits, probes: [...probes, ...rest.probes] };
    }
    known = true;
    suspects = suspects.slice(lo, hi);
  }
  return { culprits: suspects, probes };
}

/** Up to `k` distinct prefix lengths cut evenly through `n` suspects, each in [1, n - 1]. */
function cuts(n: number, k: number): number[] {
  const count = Math.min(k, n - 1);
  const lengths = new Set<number>();
  for (let j = 1; j <= count; j++) lengths.add(Math.max(1, Math.floor((j * n) / (count + 1))));
  return [...lengths];
}
