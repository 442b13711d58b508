import { describe, expect, it } from 'vitest';
import { fitRunCost, type Stretch } from './run-cost.js';

type Costs = { handoff?: number; round?: number; cell?: number; conflict?: number };

/** Stretches of these shapes whose work is exactly these costs (none where a cost is not given). */
function exact(costs: Costs, shapes: Array<Partial<Omit<Stretch, 'workMs'>>>): Stretch[] {
  return shapes.map(({ rounds = 0, conflicts = 0, cells = 0 }) => ({
    rounds,
    conflicts,
    cells,
    workMs:
      (costs.handoff ?? 0) +
      (costs.round ?? 0) * rounds +
      (costs.cell ?? 0) * cells +
      (costs.conflict ?? 0) * conflicts,
  }));
}

describe('fitRunCost', () => {
  it('separates the cost of a round from that of a conflict when both vary', () => {
    // 4 s a round, 1.5 s a conflict, exactly.
    const stretches = exact({ round: 4000, conflict: 1500 }, [
      { rounds: 2, conflicts: 10 },
      { rounds: 16, conflicts: 20 },
      { rounds: 2, conflicts: 4 },
      { rounds: 6, conflicts: 12 },
    ]);
    const cost = fitRunCost(stretches);
    expect(cost?.perHandoffMs).toBeCloseTo(0, 6);
    expect(cost?.perRoundMs).toBeCloseTo(4000, 6);
    expect(cost?.perConflictMs).toBeCloseTo(1500, 6);
    expect(cost?.roundsPerHandoff).toBe(6.5);
  });

  it("separates a continue's fixed work from its rounds and conflicts", () => {
    // 3 s a continue, 2 s a round, 1 s a conflict, exactly.
    const stretches = exact({ handoff: 3000, round: 2000, conflict: 1000 }, [
      { rounds: 2, conflicts: 10 },
      { rounds: 2, conflicts: 4 },
      { rounds: 8, conflicts: 6 },
      { rounds: 4, conflicts: 1 },
    ]);
    const cost = fitRunCost(stretches)!;
    expect(cost.perHandoffMs).toBeCloseTo(3000, 6);
    expect(cost.perRoundMs).toBeCloseTo(2000, 6);
    expect(cost.perConflictMs).toBeCloseTo(1000, 6);
  });

  it('separates the cells the rounds merge from the rounds, the conflicts and the fixed work', () => {
    // 1 s a continue, 500 ms a round, 2 ms a cell, 800 ms a conflict, exactly: the mid-run's wide
    // stretches merge thousands of cells in the same two rounds as the end's few hundred.
    const stretches = exact({ handoff: 1000, round: 500, cell: 2, conflict: 800 }, [
      { rounds: 2, conflicts: 12, cells: 3000 },
      { rounds: 2, conflicts: 10, cells: 1800 },
      { rounds: 6, conflicts: 14, cells: 3400 },
      { rounds: 2, conflicts: 5, cells: 600 },
      { rounds: 8, conflicts: 4, cells: 1400 },
    ]);
    const cost = fitRunCost(stretches)!;
    expect(cost.perHandoffMs).toBeCloseTo(1000, 6);
    expect(cost.perRoundMs).toBeCloseTo(500, 6);
    expect(cost.perCellMs).toBeCloseTo(2, 6);
    expect(cost.perConflictMs).toBeCloseTo(800, 6);
  });

  it('never says a negative cost: the best fit of the other factors stands instead', () => {
    // Work falls as rounds rise: a fit of both would make rounds pay back time.
    const stretches = [
      { rounds: 2, conflicts: 10, cells: 0, workMs: 30_000 },
      { rounds: 4, conflicts: 10, cells: 0, workMs: 28_000 },
      { rounds: 2, conflicts: 5, cells: 0, workMs: 15_000 },
    ];
    const cost = fitRunCost(stretches);
    expect(cost).not.toBeNull();
    expect(cost!.perRoundMs).toBe(0);
    expect(cost!.perHandoffMs).toBeGreaterThanOrEqual(0);
    expect(cost!.perConflictMs).toBeGreaterThan(0);
  });

  it('says nothing from fewer than three stretches', () => {
    expect(fitRunCost([{ rounds: 2, conflicts: 3, cells: 40, workMs: 9000 }])).toBeNull();
  });
});
