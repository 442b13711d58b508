import { describe, expect, it } from 'vitest';
import { blamesResolutions, compareWithBaselines, sideOutcome, validates, type SideOutcome } from './baseline.js';

const passed: SideOutcome = { passed: true, failing: [], ran: null, stopped: null };
const failing = (...ids: string[]): SideOutcome => ({ passed: false, failing: ids, ran: null, stopped: null });
const unnamed: SideOutcome = { passed: false, failing: null, ran: null, stopped: null };

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

  it("a merge that stopped at a tip's own failure (its output says so: mocha --bail) is not blamed, and said to hide more", () => {
    // body-parser 1.20.2 on Node 20: the fork side stops after 61 passing and 1 failing, the upstream side runs 257.
    const bail = 'mocha ran with --bail, which stops at the first failing test';
    const stopped = { passed: false, failing: ['json > strict > should 400 on primitives'], ran: 62, stopped: bail };
    const result = compareWithBaselines(stopped, { fork: stopped, upstream: { passed: true, failing: [], ran: 257 } });
    expect(result).toMatchObject({ verdict: 'inherited_only', incomplete: true, blamed: [] });
    expect(result.reason).toBe(
      `every test failing on the merge also fails on a tip (1 test): nothing is blamed on the resolutions; the run on the merge stopped early (${bail}), so the tests after it never ran and may hide more failures`,
    );
  });

  it('tips with different tests are no stop: fewer tests on the merge than on a tip is compared test by test (werkzeug 0.15.x)', () => {
    // pytest without -x: 501 tests on the fork tip, 548 on the upstream tip, 516 on the merge, each to its end.
    const fork = { passed: false, failing: ['t::a', 't::b'], ran: 501, stopped: null };
    const upstream = { passed: false, failing: ['t::a', 't::c'], ran: 548, stopped: null };
    const merged = { passed: false, failing: ['t::a', 't::b', 't::c'], ran: 516, stopped: null };
    const result = compareWithBaselines(merged, { fork, upstream });
    expect(result).toEqual({
      verdict: 'inherited_only',
      by: 'tests',
      blamed: [],
      inherited: ['t::a', 't::b', 't::c'],
      incomplete: false,
      reason: 'every test failing on the merge also fails on a tip (3 tests): nothing is blamed on the resolutions',
    });
    expect(validates(result)).toBe(true);
    // a test the merge has and a tip lacks, failing on the merge alone, is blamed; nothing is said about counts
    const more = compareWithBaselines({ ...merged, failing: ['t::a', 't::new'] }, { fork, upstream });
    expect(more).toMatchObject({ verdict: 'new_failures', blamed: ['t::new'], incomplete: false });
    expect(more.reason).toBe('1 test failing on the merge and on neither tip; 1 test also failing on a tip not blamed');
  });

  it('a failing tip whose run stopped early may miss tests blamed on the merge: said, still blamed', () => {
    const tip = {
      passed: false,
      failing: ['t::a'],
      ran: 197,
      stopped: 'pytest: stopping after 1 failures (-x or --maxfail)',
    };
    const result = compareWithBaselines(failing('t::a', 't::z'), { fork: tip, upstream: passed });
    expect(result).toMatchObject({ verdict: 'new_failures', blamed: ['t::z'], incomplete: true });
    expect(result.reason).toBe(
      '1 test failing on the merge and on neither tip; 1 test also failing on a tip not blamed; the fork tip stopped early (pytest: stopping after 1 failures (-x or --maxfail)), so some tests blamed here may never have run there',
    );
    // where nothing is blamed, a baseline's early stop changes nothing
    expect(compareWithBaselines(failing('t::a'), { fork: tip, upstream: passed }).incomplete).toBe(false);
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
      // fewer tests than a tip, to its end: validated
      [{ passed: false, failing: ['a'], ran: 1 }, false, true],
      // stopped at the inherited failure (--bail): not blamed, not validated either
      [{ passed: false, failing: ['a'], ran: 1, stopped: 'mocha ran with --bail' }, false, false],
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
    expect(sideOutcome(false, { runner: 'mocha', failures: [test, test], ran: 5, stopped: null })).toEqual({
      passed: false,
      failing: ['a'],
      ran: 5,
      stopped: null,
    });
    expect(sideOutcome(false, { runner: 'mocha', failures: [], ran: 3, stopped: null })).toEqual({
      ...unnamed,
      ran: 3,
    });
    expect(sideOutcome(false, null)).toEqual(unnamed);
  });

  it('a run killed by a signal, or one that never printed its summary, stopped early (a crash)', () => {
    const test = { id: 'a', title: 'a', message: 'm', location: null, excerpt: '' };
    const pytest = { runner: 'pytest' as const, failures: [test], ran: null, stopped: null };
    expect(sideOutcome(false, pytest).stopped).toBe('the run ended before pytest printed its summary');
    expect(sideOutcome(false, { ...pytest, ran: 4 }, { signal: 'SIGSEGV' }).stopped).toBe('killed by SIGSEGV');
    expect(sideOutcome(false, { ...pytest, ran: 4 }).stopped).toBeNull();
    expect(sideOutcome(true, { ...pytest, failures: [], ran: null }).stopped).toBeNull();
  });
});
