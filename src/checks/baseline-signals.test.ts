import { describe, expect, it } from 'vitest';
import { blamesResolutions, compareWithBaselines, validates, type SideOutcome } from './baseline.js';

const passed: SideOutcome = { passed: true, failing: [] };
const fails = (failing: string[] | null, more: Partial<SideOutcome> = {}): SideOutcome => ({
  passed: false,
  failing,
  ...more,
});

describe('where a side names no test, the other signals still judge the merge', () => {
  it('a merge failing exactly as the fork tip fails, the upstream tip failing to even load: against the baselines', () => {
    const c = compareWithBaselines(fails(['a', 'b'], { exitCode: 2 }), {
      fork: fails(['a', 'b'], { exitCode: 2 }),
      upstream: fails(null, { exitCode: 1, stopped: 'the run ended before mocha printed its summary' }),
    });
    expect([c.verdict, c.inherited, blamesResolutions(c), validates(c)]).toEqual([
      'inherited_only',
      ['a', 'b'],
      false,
      true,
    ]);
    expect(c.reason).toMatch(/^every test failing on the merge also fails on a tip \(2 tests\)/);
  });

  it('both tips pass and the merge fails with no test named: blamed', () => {
    const c = compareWithBaselines(fails(null), { fork: passed, upstream: passed });
    expect([c.verdict, blamesResolutions(c)]).toEqual(['broken_by_merge', true]);
  });

  it("no names anywhere, but the merge fails more tests than the tips together by the runner's count: blamed", () => {
    const c = compareWithBaselines(fails(null, { failed: 3 }), {
      fork: fails(null, { failed: 1 }),
      upstream: fails(null, { failed: 1 }),
    });
    expect([c.verdict, c.by, blamesResolutions(c)]).toEqual(['broken_by_merge', 'outcome', true]);
    expect(c.reason).toBe(
      "3 tests failing on the merge, more than the 2 failing on the fork and upstream tip together by their runner's count (no test names could be read on the merge, the fork tip and the upstream tip)",
    );
    // As many as the tips could account for: cannot tell.
    expect(
      compareWithBaselines(fails(null, { failed: 2 }), {
        fork: fails(null, { failed: 1 }),
        upstream: fails(['u'], {}),
      }).verdict,
    ).toBe('cannot_tell');
  });

  it('tests failing on the merge that no named baseline fails, more than the unnamed one counts: blamed by name', () => {
    const c = compareWithBaselines(fails(['a', 'new']), {
      fork: fails(['a']),
      upstream: fails(null, { failed: 0, exitCode: 1 }),
    });
    expect([c.verdict, c.blamed, c.inherited]).toEqual(['new_failures', ['new'], ['a']]);
    // The unnamed tip failing one test of its own might be that one.
    expect(
      compareWithBaselines(fails(['a', 'new']), { fork: fails(['a']), upstream: fails(null, { failed: 1 }) }).verdict,
    ).toBe('cannot_tell');
  });

  it('without counts, an exit status no failing baseline has: blamed; the same status: cannot tell', () => {
    const tips = { fork: fails(null, { exitCode: 1 }), upstream: passed };
    const other = compareWithBaselines(fails(null, { exitCode: 2 }), tips);
    expect([other.verdict, blamesResolutions(other)]).toEqual(['broken_by_merge', true]);
    expect(other.reason).toMatch(/^the check exits with status 2 on the merge and with 1 on the fork tip/);
    expect(compareWithBaselines(fails(null, { exitCode: 1 }), tips).verdict).toBe('cannot_tell');
  });
});
