import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/git-repo.js';
import { extractFailure } from '../extract-failure.js';
import { parseTestFailures } from './index.js';

const fixtures = join(import.meta.dirname, '../../../test/fixtures/checks/test-output');
const captured = readFileSync(join(fixtures, 'node-test-tap.log'), 'utf8');

const expected = [
  {
    id: 'math > multiplies',
    title: 'multiplies',
    message: 'AssertionError: Expected values to be strictly equal: 6 !== 5',
    location: 'math.test.mjs:9',
  },
  {
    id: 'math > division > divides',
    title: 'divides',
    message: expect.stringMatching(/^AssertionError: Expected values to be strictly deep-equal: .*q: 2 - {3}q: 3/),
    location: 'math.test.mjs:13',
  },
  { id: 'throws', title: 'throws', message: 'TypeError: boom', location: 'math.test.mjs:20' },
];

describe('node:test TAP output', () => {
  it('names each failing test by its suites, with the error and the failing line; failed suites are left out', () => {
    const read = parseTestFailures(captured, { cwd: '/tmp/nodetap' });
    expect(read).toMatchObject({ runner: 'node-test', ran: 5, stopped: null });
    expect(read?.failures).toMatchObject(expected);
    expect(read?.failures[0]?.excerpt).toMatch(/^ {4}not ok 2 - multiplies\n[\s\S]*6 !== 5/);
  });

  it('the failure summary leads with the first failing test', () => {
    expect(extractFailure(captured, { cwd: '/tmp/nodetap' })).toMatchObject({
      error_type: 'test_failure',
      location: 'math.test.mjs:9',
      root_cause: expect.stringMatching(/^"multiplies" — AssertionError: .*6 !== 5 \(and 2 more failing tests\)$/),
    });
  });

  it('a live run of node --test reads the same as the captured one', async () => {
    const dir = tempDir();
    copyFileSync(join(fixtures, 'node-test-tap/math.test.mjs'), join(dir, 'math.test.mjs'));
    const run = await execa('node', ['--test', '--test-reporter=tap', 'math.test.mjs'], { cwd: dir, reject: false });
    expect(run.exitCode).toBe(1);
    const read = parseTestFailures(run.stdout, { cwd: dir });
    expect(read).toMatchObject({ runner: 'node-test', ran: 5 });
    expect(read?.failures).toMatchObject(expected);
  });

  it("a test file that does not load: its path relative to the check, the file's own error and line", () => {
    const log = readFileSync(join(fixtures, 'node-test-tap-load-error.log'), 'utf8');
    expect(parseTestFailures(log, { cwd: '/tmp/nodetap' })).toMatchObject({
      runner: 'node-test',
      ran: 1,
      failures: [
        {
          id: 'lib.test.mjs',
          message: "SyntaxError: Identifier 'factor' has already been declared",
          location: 'lib.mjs:2',
        },
      ],
    });
  });

  it('a passing run is recognised with no failures; other runners are not mistaken for it', () => {
    const passing =
      'TAP version 13\n# Subtest: adds\nok 1 - adds\n  ---\n  duration_ms: 0.5\n  ...\n1..1\n# tests 1\n# pass 1\n# fail 0\n';
    expect(parseTestFailures(passing)).toEqual({ runner: 'node-test', failures: [], ran: 1, failed: 0, stopped: null });
    const vitest = readFileSync(join(fixtures, 'vitest.log'), 'utf8');
    expect(parseTestFailures(vitest)?.runner).toBe('vitest');
  });
});
