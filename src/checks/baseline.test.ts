import { describe, expect, it } from 'vitest';
import { blamesResolutions, compareWithBaselines, sideOutcome, validates, type SideOutcome } from './baseline.js';

const passed: SideOutcome = { passed: true, failing: [], ran: null };
const failing = (...ids: string[]): SideOutcome => ({ passed: false, failing: ids, ran: null });
const unnamed: SideOutcome = { passed: false, failing: null, ran: null };

describe('compareWithBaselines', () => {
  it('a merge that passes blames nothing, whatever the tips did', () => {
    expect(compareWithBaselines(passed, { fork: failing('a'), upstream: passed })).toEqual({
      verdict: 'pass',
      by: 'tests',
      blamed: [],
      inherited: [],
      incomplete: false,
      reason: 'the check passes on the merge (it fails on the fork tip)',
    });
  });

  it('blames only the tests that fail on neither tip', () => {
    const result = compareWithBaselines(failing('json > primitives', 'urlencoded > large array'), {
      fork: failing('json > primitives'),
      upstream: passed,
    });
    expect(result).toEqual({
      verdict: 'new_failures',
      by: 'tests',
      blamed: ['urlencoded > large array'],
      inherited: ['json > primitives'],
      incomplete: false,
      reason: '1 test failing on the merge and on neither tip; 1 test also failing on a tip not blamed',
    });
    expect(compareWithBaselines(failing('x', 'y'), { fork: passed, upstream: passed })).toMatchObject({
      verdict: 'new_failures',
      blamed: ['x', 'y'],
      reason: '2 tests failing on the merge and on neither tip',
    });
  });

  it('failures that a tip already has are not blamed (body-parser 1.19.2: the same test fails on both sides)', () => {
    const tip = failing('bodyParser.json() > with strict option > when undefined > should 400 on primitives');
    expect(compareWithBaselines(tip, { fork: tip, upstream: tip })).toMatchObject({
      verdict: 'inherited_only',
      by: 'tests',
      blamed: [],
      inherited: tip.failing,
    });
  });

  it("a merge that stopped at a tip's own failure (mocha --bail) ran fewer tests: said, since it may hide more", () => {
    // body-parser 1.20.2 on Node 20: the fork side stops after 61 passing and 1 failing, the upstream side runs 257.
    const stopped = { passed: false, failing: ['json > strict > should 400 on primitives'], ran: 62 };
    const result = compareWithBaselines(stopped, { fork: stopped, upstream: { passed: true, failing: [], ran: 257 } });
    expect(result).toMatchObject({ verdict: 'inherited_only', incomplete: true, blamed: [] });
    expect(result.reason).toBe(
      'every test failing on the merge also fails on a tip (1 test): nothing is blamed on the resolutions; only 62 tests ran on the merge against 257 on a tip, so a runner that stops at its first failure (mocha --bail, pytest -x) may hide more',
    );
    expect(
      compareWithBaselines(
        { ...stopped, ran: 300 },
        { fork: stopped, upstream: { passed: true, failing: [], ran: 257 } },
      ).incomplete,
    ).toBe(false);
  });

  it('where no names can be read, the whole outcome is compared', () => {
    expect(compareWithBaselines(unnamed, { fork: passed, upstream: passed })).toMatchObject({
      verdict: 'broken_by_merge',
      by: 'outcome',
    });
    expect(compareWithBaselines(unnamed, { fork: failing('a'), upstream: passed })).toEqual({
      verdict: 'cannot_tell',
      by: 'outcome',
      blamed: [],
      inherited: [],
      incomplete: false,
      reason:
        'the check fails on the merge and also on the fork tip, and no test names could be read on the merge: cannot tell whether the merge broke more',
    });
    expect(compareWithBaselines(failing('a'), { fork: passed, upstream: unnamed }).reason).toBe(
      'the check fails on the merge and also on the upstream tip, and no test names could be read on the upstream tip: cannot tell whether the merge broke more',
    );
  });

  it("the cell's own fork and upstream commits can be baselines too: a test an early fork commit broke is not blamed", () => {
    const tips = [
      { label: 'fork tip', outcome: passed },
      { label: 'upstream tip', outcome: passed },
    ];
    const merged = failing('x');
    expect(compareWithBaselines(merged, tips)).toMatchObject({ verdict: 'new_failures', blamed: ['x'] });
    const withEdges = [
      ...tips,
      { label: 'fork commit 2 (abc1234)', outcome: failing('x') },
      { label: 'upstream commit 3 (def5678)', outcome: passed },
    ];
    expect(compareWithBaselines(merged, withEdges)).toEqual({
      verdict: 'inherited_only',
      by: 'tests',
      blamed: [],
      inherited: ['x'],
      incomplete: false,
      reason: 'every test failing on the merge also fails on a baseline (1 test): nothing is blamed on the resolutions',
    });
    expect(compareWithBaselines(failing('x', 'y'), withEdges).reason).toBe(
      '1 test failing on the merge and on none of the fork tip, upstream tip, fork commit 2 (abc1234) and upstream commit 3 (def5678); 1 test also failing on a baseline not blamed',
    );
    expect(
      compareWithBaselines(unnamed, [...tips, { label: 'fork commit 2 (abc1234)', outcome: unnamed }]),
    ).toMatchObject({ verdict: 'cannot_tell', by: 'outcome' });
  });

  it('only new failures and a merge broken as a whole are blamed; only a pass or a complete inherited failure validates', () => {
    const tips = { fork: { passed: false, failing: ['a'], ran: 1 }, upstream: { passed: true, failing: [], ran: 3 } };
    const cases: Array<[SideOutcome, boolean, boolean]> = [
      [passed, false, true],
      [{ passed: false, failing: ['a'], ran: 3 }, false, true],
      // stopped at the inherited failure (--bail): not blamed, not validated either
      [{ passed: false, failing: ['a'], ran: 1 }, false, false],
      [{ passed: false, failing: ['b'], ran: 3 }, true, false],
      [unnamed, false, false],
    ];
    for (const [merged, blames, valid] of cases) {
      const result = compareWithBaselines(merged, tips);
      expect([blamesResolutions(result), validates(result)]).toEqual([blames, valid]);
    }
    expect(blamesResolutions(compareWithBaselines(unnamed, { fork: passed, upstream: passed }))).toBe(true);
  });

  it('results are plain JSON', () => {
    const result = compareWithBaselines(failing('a'), { fork: failing('b'), upstream: unnamed });
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });
});

describe('sideOutcome', () => {
  it('names the failing tests, or null when a failed run names none', () => {
    expect(sideOutcome(true, null)).toEqual(passed);
    const test = { id: 'a', title: 'a', message: 'm', location: null, excerpt: '' };
    expect(sideOutcome(false, { runner: 'mocha', failures: [test, test], ran: 5 })).toEqual({
      passed: false,
      failing: ['a'],
      ran: 5,
    });
    expect(sideOutcome(false, { runner: 'mocha', failures: [], ran: null })).toEqual(unnamed);
    expect(sideOutcome(false, null)).toEqual(unnamed);
  });
});
