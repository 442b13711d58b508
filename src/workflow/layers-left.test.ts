import { describe, expect, it } from 'vitest';
import { expectedConflicts, type GridSample } from './estimate.js';
import { layersLeft } from './layers-left.js';

const sample = (s: Partial<GridSample>): GridSample => ({
  size: { i1: 4, i2: 100 },
  filled: [50, 50, 50, 50],
  blockedRows: [],
  conflictRows: [],
  tips: null,
  ...s,
});

describe('layersLeft', () => {
  it('blocked cells side by side are one layer; conflicts to come in a row are one layer each', () => {
    // Every row blocked at its frontier (a staircase, as the engine leaves it), nothing more expected:
    // one hand-off settles them all.
    const blocked = sample({ filled: [79, 59, 39, 19], blockedRows: [1, 2, 3, 4], conflictRows: [1, 2, 3, 4] });
    const range = { ...expectedConflicts(blocked), perRow: [0, 0, 0, 0] };
    expect(layersLeft(blocked, range)).toBe(1);
    // Three more expected in row 2 alone: each waits for the one before it.
    expect(layersLeft(blocked, { ...range, perRow: [0, 3, 0, 0] })).toBe(4);
  });

  it('rows of fractions add up: 0.5 conflict in each of four rows is two conflicts, not none', () => {
    const g = sample({ conflictRows: [1] });
    const layers = layersLeft(g, { ...expectedConflicts(g), perRow: [0.5, 0.5, 0.5, 0.5] });
    expect(layers).toBeGreaterThanOrEqual(1);
    expect(layers).toBeLessThanOrEqual(2);
  });

  it('is null before the grid says anything', () => {
    const g = sample({ filled: null });
    expect(layersLeft(g, expectedConflicts(g))).toBeNull();
  });

  it('the range says per row what it expects, adding up to the count beyond those known', () => {
    const g = sample({ filled: [50, 20, 10, 0], conflictRows: [1, 1, 2, 3], blockedRows: [] });
    const range = expectedConflicts(g);
    const perRow = range.perRow!;
    expect(perRow).toHaveLength(4);
    expect(Math.round(perRow.reduce((a, b) => a + b, 0) + range.known)).toBe(range.expected);
  });
});
