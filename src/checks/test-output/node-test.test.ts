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

const spec = readFileSync(join(fixtures, 'node-test-spec.log'), 'utf8');

/**
 * Node 22 and later print a failing test's error only in the `✖ failing tests:` section after the counts
 * (the spec reporter's change "print failing assertion only once"); Node 20 prints it under the test as
 * well. The Node 20 capture without the errors under the tests is that shape.
 */
function errorsOnlyInSummary(log: string): string {
  const lines = log.split('\n');
  const summary = lines.indexOf('✖ failing tests:');
  const out: string[] = [];
  let under: number | null = null;
  for (const [i, line] of lines.entries()) {
    const indent = line.search(/\S/);
    if (i < summary && under !== null && (line.trim() === '' || indent > under)) continue;
    under = i < summary && /^\s*✖ /.test(line) ? indent : null;
    out.push(line);
  }
  return out.join('\n');
}

const specExpected = [
  expected[0],
  {
    ...expected[1],
    message: expect.stringMatching(/^AssertionError: Expected values to be strictly deep-equal: .*q: 2 - {3}q: 3/),
  },
  // math.test.mjs of the spec captures has a todo in the suite: the lines below it are one further.
  { id: 'throws', title: 'throws', message: 'TypeError: boom', location: 'math.test.mjs:21' },
];

describe('node:test spec output (Node 20 captured; the shape of Node 22)', () => {
  it('names each failing test by its suites; suites that failed by their tests, skipped and todo tests, and the closing list are not counted', () => {
    const read = parseTestFailures(spec, { cwd: '/tmp/nodespec' });
    expect(read).toMatchObject({ runner: 'node-test', ran: 5, failed: 3, stopped: null });
    expect(read?.failures).toMatchObject(specExpected);
    expect(read?.failures[0]?.excerpt).toMatch(/^ {2}✖ multiplies \([\d.]+ms\)\n[\s\S]*6 !== 5/);
    expect(read?.failures).toHaveLength(3);
  });

  it("Node 22's errors only under '✖ failing tests:' read the same, each failure once", () => {
    const node22 = errorsOnlyInSummary(spec);
    expect(node22).not.toMatch(/✖ multiplies \([\d.]+ms\)\n {4}AssertionError/);
    const read = parseTestFailures(node22, { cwd: '/tmp/nodespec' });
    expect(read?.failures).toMatchObject(specExpected);
    expect(read?.failures[0]?.excerpt).toMatch(/^✖ multiplies \([\d.]+ms\)\n {2}AssertionError[\s\S]*6 !== 5/);
    expect(read?.failures).toHaveLength(3);
  });

  it('a live run of node --test --test-reporter=spec reads the same as the captured one', async () => {
    const dir = tempDir();
    copyFileSync(join(fixtures, 'node-test-spec/math.test.mjs'), join(dir, 'math.test.mjs'));
    const run = await execa('node', ['--test', '--test-reporter=spec', 'math.test.mjs'], { cwd: dir, reject: false });
    expect(run.exitCode).toBe(1);
    const read = parseTestFailures(run.stdout, { cwd: dir });
    expect(read).toMatchObject({ runner: 'node-test', ran: 5, failed: 3 });
    expect(read?.failures).toMatchObject(specExpected);
  });

  it("a failing hook is its suite's own failure; the test it cancelled is named under it", () => {
    const log = readFileSync(join(fixtures, 'node-test-spec-hook.log'), 'utf8');
    expect(
      parseTestFailures(log, { cwd: '/tmp/nodespec' })?.failures.map((f) => [f.id, f.message, f.location]),
    ).toEqual([
      ['db > reads', 'test did not finish before its parent and was cancelled', 'hook.test.mjs:4'],
      ['db', 'Error: no connection', 'hook.test.mjs:3'],
    ]);
  });

  it('a test file that does not load, and a passing run', () => {
    const load = readFileSync(join(fixtures, 'node-test-spec-load-error.log'), 'utf8');
    expect(parseTestFailures(load, { cwd: '/tmp/nodespec' })?.failures).toMatchObject([
      {
        id: 'lib.test.mjs',
        message: "SyntaxError: Identifier 'factor' has already been declared",
        location: 'lib.mjs:2',
      },
    ]);
    const passing = readFileSync(join(fixtures, 'node-test-spec-pass.log'), 'utf8');
    expect(parseTestFailures(passing)).toEqual({ runner: 'node-test', failures: [], ran: 3, failed: 0, stopped: null });
  });
});
