import { describe, expect, it } from 'vitest';
import { sideWords } from './decided-once.js';

describe("a cell's side, in words", () => {
  it("is the side's own commit at the grid's edge, and the cell merged before it inside", () => {
    expect(sideWords({ i1: 1, i2: 4 }, 'upstream')).toBe("upstream's side (upstream commit 4 as it is)");
    // Inside the grid upstream's side carries the resolutions before it: a file upstream deleted may be there.
    expect(sideWords({ i1: 2, i2: 1 }, 'upstream')).toBe(
      "upstream's side (cell 1-1: upstream commit 1 with the merge so far)",
    );
    expect(sideWords({ i1: 3, i2: 1 }, 'fork')).toBe('the fork side (fork commit 3 as it is)');
    expect(sideWords({ i1: 3, i2: 5 }, 'fork')).toBe('the fork side (cell 3-4: fork commit 3 with the merge so far)');
  });
});
