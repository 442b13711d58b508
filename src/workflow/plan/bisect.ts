import { compareCells, maximalCells, type Cell } from '../../imerge/cell.js';

/**
 * Runs the check on a tree holding the resolutions of these cells and everything they are built
 * on (the maximal cells of a set: one cell's own tree, or several merged); true = passed, null =
 * no such tree can be made (the cells' merge conflicts).
 */
export type SetProbe = (cells: Cell[]) => Promise<boolean | null>;

export interface BisectResult {
  /** The resolutions isolated as bad (usually one); empty when no probe failed. */
  culprits: Cell[];
  /** Every probe run, in order: the maximal cells of the set checked, and its outcome. */
  probes: Array<{ cells: Cell[]; passed: boolean }>;
}

/**
 * Find the bad resolution among resolved cells by checking trees that hold some of them.
 *
 * The suspects are kept in grid order, a linear extension of domination, so every prefix of them
 * is closed downwards: the tree of a prefix's maximal cells holds that prefix and no later
 * suspect. Each probe checks the first half: failing, the culprit is in it; passing, it is
 * cleared. That is a binary search whether the cells form a chain or are independent (the
 * blocked cells of one frontier): at most ceil(log2 N) probes, plus one when `knownFailing` (the
 * failed batch check) is not given. Where a prefix's tree cannot be made, the first suspect is
 * checked alone. Assumes monotone failure: a tree containing a bad resolution fails the check.
 */
export async function bisectResolutions(
  resolved: readonly Cell[],
  probe: SetProbe,
  options: { knownFailing?: boolean } = {},
): Promise<BisectResult> {
  const probes: BisectResult['probes'] = [];
  const run = async (cells: Cell[]): Promise<boolean | null> => {
    const top = maximalCells(cells);
    const passed = await probe(top);
    if (passed !== null) probes.push({ cells: top, passed });
    return passed;
  };

  let suspects = [...resolved].sort(compareCells);
  if (suspects.length === 0) return { culprits: [], probes };
  if (!options.knownFailing && (await run(suspects)) !== false) return { culprits: [], probes };

  while (suspects.length > 1) {
    const half = suspects.slice(0, Math.ceil(suspects.length / 2));
    const passed = await run(half);
    if (passed === null) {
      // No tree for the prefix: the first suspect alone (one cell's tree always exists).
      const first = suspects.slice(0, 1);
      suspects = (await run(first)) === false ? first : suspects.slice(1);
    } else {
      suspects = passed ? suspects.slice(half.length) : half;
    }
  }
  return { culprits: suspects, probes };
}
