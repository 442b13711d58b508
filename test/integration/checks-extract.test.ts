import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CheckRunner } from '../../src/checks/check-runner.js';
import { blamesResolutions, compareWithBaselines, sideOutcome, validates } from '../../src/checks/baseline.js';
import { extractFailure } from '../../src/checks/extract-failure.js';
import { parseTestFailures, type ParseTestOptions } from '../../src/checks/test-output/index.js';
import { tempDir } from '../helpers/git-repo.js';

const here = resolve(fileURLToPath(new URL('.', import.meta.url)));
const logs = join(here, '../fixtures/logs');
const tsc = join(here, '../../node_modules/.bin/tsc');
const captured = (name: string): string => readFileSync(join(logs, name), 'utf8');

/** Run a real tool through the real CheckRunner and return its log. */
function realLog(files: Record<string, string>, command: string): Promise<string> {
  return realLogIn(tempDir(), files, command);
}

async function realLogIn(dir: string, files: Record<string, string>, command: string): Promise<string> {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const runner = new CheckRunner({
    workdir: dir,
    outputDir: join(dir, 'logs'),
    commands: { c: command },
    timeoutSec: 60,
    killGraceSec: 1,
    sandbox: 'off',
  });
  const result = await runner.run('c');
  expect(result.success).toBe(false);
  return readFileSync(result.logFile, 'utf8');
}

describe('extractFailure on real tool output', () => {
  it("gcc under make: the compiler error, not make's summary", async () => {
    const log = await realLog(
      {
        'a.c': 'int ok(void) { return 0; }\nint main(void) {\n  return missing_value;\n}\n',
        Makefile: 'all:\n\tgcc -c a.c -o a.o\n',
      },
      'make',
    );
    expect(log).toMatch(/make: \*\*\*/);
    expect(extractFailure(log)).toMatchObject({
      error_type: 'compile_error',
      location: 'a.c:3',
      root_cause: expect.stringContaining('missing_value'),
    });
  });

  it('gcc link error: the undefined reference', async () => {
    const log = await realLog({ 'b.c': 'int helper(void);\nint main(void) { return helper(); }\n' }, 'gcc b.c -o b');
    expect(extractFailure(log)).toMatchObject({
      error_type: 'link_error',
      root_cause: expect.stringContaining('helper'),
    });
  });

  it('tsc: file(line,col): error TSxxxx', async () => {
    const log = await realLog(
      { 'x.ts': 'const n: number = 1;\nconst s: string = n;\nexport {};\n' },
      `${tsc} --noEmit --strict --pretty false x.ts`,
    );
    expect(extractFailure(log)).toMatchObject({
      error_type: 'compile_error',
      location: 'x.ts:2',
      root_cause: expect.stringMatching(/^TS2322: Type 'number' is not assignable/),
    });
  });

  it('node assertion in a test script', async () => {
    const log = await realLog(
      { 't.mjs': "import assert from 'node:assert';\nassert.strictEqual(1 + 1, 3, 'sum is wrong');\n" },
      'node t.mjs',
    );
    const summary = extractFailure(log);
    expect(summary).toMatchObject({ error_type: 'test_failure', root_cause: expect.stringContaining('sum is wrong') });
    expect(summary?.location).toMatch(/t\.mjs:2$/);
  });

  it('captured logs of rustc, cargo test, pytest, ninja and vitest', () => {
    expect(extractFailure(captured('rustc-undefined.log'))).toMatchObject({
      error_type: 'compile_error',
      location: 'main.rs:3',
      root_cause: 'E0425: cannot find value `y` in this scope',
    });
    expect(extractFailure(captured('cargo-test.log'))).toMatchObject({
      error_type: 'test_failure',
      location: 'src/main.rs:3',
      root_cause: expect.stringContaining('t::two'),
    });
    expect(extractFailure(captured('pytest-assert.log'))).toMatchObject({
      error_type: 'test_failure',
      location: 'test_calc.py:5',
      root_cause: '"test_add" — assert 0 == 4',
    });
    expect(extractFailure(captured('ninja-gcc.log'))).toMatchObject({
      error_type: 'compile_error',
      location: 'a.c:1',
      root_cause: expect.stringContaining('undefined_var'),
    });
    expect(extractFailure(captured('vitest-assert.log'))).toMatchObject({
      error_type: 'test_failure',
      location: 'cart.test.mjs:2',
      root_cause: expect.stringMatching(/^"adds totals" — AssertionError: expected 2 to be 3/),
    });
  });

  it('samples in the exact formats of go and jest', () => {
    expect(extractFailure(captured('go-test.sample.log'))).toMatchObject({
      error_type: 'test_failure',
      location: 'cart_test.go:14',
      root_cause: '"TestTotal" — Total() = 5, want 6',
    });
    expect(extractFailure(captured('go-build.sample.log'))).toMatchObject({
      error_type: 'compile_error',
      location: './cart.go:12',
      root_cause: 'undefined: totl',
    });
    expect(extractFailure(captured('jest.sample.log'))).toMatchObject({
      error_type: 'test_failure',
      location: 'src/cart.test.js:2',
      root_cause: expect.stringMatching(/^"adds totals" — expect\(received\)\.toBe/),
    });
  });

  it('timeouts, and logs with no recognisable error', () => {
    expect(extractFailure('building...\nstill building...', { timedOut: true })).toMatchObject({
      error_type: 'timeout',
      location: null,
    });
    expect(extractFailure('all good\nnothing to see\n')).toBeNull();
  });
});

const outputs = join(here, '../fixtures/checks/test-output');
const output = (name: string): string => readFileSync(join(outputs, name), 'utf8');
const ids = (log: string, options: ParseTestOptions = {}): [string | undefined, string[]] => {
  const parsed = parseTestFailures(log, options);
  return [parsed?.runner, parsed?.failures.map((t) => t.id) ?? []];
};
const strictPrimitives = 'bodyParser.json() > with strict option > when undefined > should 400 on primitives';

describe('failing tests by name, from real runner output', () => {
  it('mocha: the body-parser fork side on Node 20 (npm test, --bail) names its one failing test', () => {
    const parsed = parseTestFailures(output('mocha-body-parser-3f5e93e.log'));
    expect(parsed).toEqual({
      runner: 'mocha',
      failures: [
        {
          id: strictPrimitives,
          title: 'should 400 on primitives',
          message:
            'Error: expected `Unexpected token \'t\', "#rue" is not valid JSON` response body, got `Unexpected token \'t\', "#" is not valid JSON`',
          location: 'test/json.js:230',
          excerpt: expect.stringMatching(
            /^ {2}1\) bodyParser\.json\(\)\n[\s\S]*at Context\.<anonymous> \(test\/json\.js:230:12\)/,
          ),
        },
      ],
      ran: 62,
      failed: 1,
      stopped: 'mocha ran with --bail, which stops at the first failing test',
    });
    expect(extractFailure(output('mocha-body-parser-3f5e93e.log'))).toMatchObject({
      error_type: 'test_failure',
      location: 'test/json.js:230',
      root_cause:
        '"should 400 on primitives" — Error: expected `Unexpected token \'t\', "#rue" is not valid JSON` response body, got `Unexpected token \'t\', "#" is not valid JSON`',
    });
  });

  it('mocha: the same test fails on both sides of body-parser 1.19.2, at other lines, under one identity', () => {
    expect(ids(output('mocha-body-parser-fbd9664.log'))).toEqual(['mocha', [strictPrimitives]]);
    expect(ids(output('mocha-body-parser-424dadd.log'))).toEqual(['mocha', [strictPrimitives]]);
    expect(parseTestFailures(output('mocha-body-parser-fbd9664.log'))?.failures[0]?.location).toBe('test/json.js:221');
  });

  it('mocha: passing runs of body-parser, send and serve-static are recognised with no failures', () => {
    for (const log of ['mocha-body-parser-ee91374.log', 'mocha-send-00d54b6.log', 'mocha-serve-static-1362955.log']) {
      expect(ids(output(log))).toEqual(['mocha', []]);
      expect(extractFailure(output(log))).toBeNull();
    }
    expect(parseTestFailures(output('mocha-body-parser-ee91374.log'))?.ran).toBe(257);
  });

  it('mocha: a broken merge with hooks, a diff and a multi-line message; absolute paths shown relative to the check directory', () => {
    const parsed = parseTestFailures(output('mocha-body-parser-broken-merge.log'), { cwd: '/tmp/bp' });
    expect(parsed?.failures.map((t) => [t.id, t.location])).toEqual([
      ['bodyParser() > "before all" hook', 'test/body-parser.js:147'],
      [strictPrimitives, 'test/json.js:230'],
      ['bodyParser.json() > with strict option > when true > should not parse primitives', 'test/json.js:258'],
      [
        'bodyParser.json() > with strict option > when true > should not parse primitives with leading whitespaces',
        'test/json.js:266',
      ],
      [
        'bodyParser.json() > with strict option > when true > should include correct message in stack trace',
        'test/json.js:681',
      ],
      ['bodyParser.urlencoded() > "before all" hook', 'test/urlencoded.js:730'],
    ]);
    // A hook's id leaves out the test it ran for (that changes as tests are added); its title keeps it.
    expect(parsed?.failures[0]).toMatchObject({
      title: '"before all" hook for "should default req.body to undefined"',
      message: 'TypeError: option parameterLimit must be a positive number',
    });
    const summary = extractFailure(output('mocha-body-parser-broken-urlencoded.log'), { cwd: '/tmp/bp' });
    expect(summary).toMatchObject({
      error_type: 'test_failure',
      location: 'test/urlencoded.js:160',
      root_cause:
        '"should parse array index notation with large array" — AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: false !== true',
    });
    expect(extractFailure(output('mocha-body-parser-broken-merge.log'))?.excerpt).toMatch(
      /Also failing \(mocha\):\n {2}bodyParser\.json\(\) > with strict option > when undefined > should 400 on primitives \(test\/json\.js:230\): Error: expected/,
    );
  });

  it('jest and vitest: file > suite > test, the assertion, and the test file line', () => {
    const jest = parseTestFailures(output('jest.log'));
    expect(jest?.runner).toBe('jest');
    expect(jest?.failures.map((t) => [t.id, t.location, t.message])).toEqual([
      [
        'test/cart.test.js > cart > sums every price',
        'test/cart.test.js:6',
        'expect(received).toBe(expected) // Object.is equality Expected: 6 Received: 5',
      ],
      [
        'test/cart.test.js > cart > format > pads the cents',
        'test/cart.test.js:13',
        'expect(received).toEqual(expected) // deep equality Expected: "1.05" Received: "1.5"',
      ],
      ['test/cart.test.js > top level throws', 'test/cart.test.js:19', 'TypeError: prices is not iterable'],
    ]);
    const vitest = parseTestFailures(output('vitest.log'));
    expect(vitest?.runner).toBe('vitest');
    expect(vitest?.failures.map((t) => [t.id, t.location, t.message])).toEqual([
      [
        'test/cart.test.js > cart > sums every price',
        'test/cart.test.js:6',
        'AssertionError: expected 5 to be 6 // Object.is equality',
      ],
      [
        'test/cart.test.js > cart > format > pads the cents',
        'test/cart.test.js:13',
        "AssertionError: expected '1.5' to deeply equal '1.05'",
      ],
      ['test/cart.test.js > top level throws', 'test/cart.test.js:19', 'TypeError: prices is not iterable'],
    ]);
  });

  it('vitest in colour, with a project label: the same ids', () => {
    expect(ids(output('vitest-color-project.log'))).toEqual(ids(output('vitest.log')));
    expect(parseTestFailures(output('vitest-color-project.log'))?.failures[0]).toMatchObject({
      location: 'test/cart.test.js:6',
      message: 'AssertionError: expected 5 to be 6 // Object.is equality',
    });
  });

  it('pytest: node ids from the short summary, the E line, the test file line', () => {
    const parsed = parseTestFailures(output('pytest.log'));
    expect(parsed?.runner).toBe('pytest');
    expect(parsed?.failures.map((t) => [t.id, t.location, t.message])).toEqual([
      ['tests/test_cart.py::test_total', 'tests/test_cart.py:7', 'assert 7 == 8'],
      [
        'tests/test_cart.py::TestDiscount::test_too_much',
        'tests/test_cart.py:19',
        'ValueError: percent must be at most 100, got 150',
      ],
      ['tests/test_cart.py::test_table[10-20-7]', 'tests/test_cart.py:24', 'assert 8.0 == 7'],
    ]);
  });

  it('go test: package::Test/subtest (a parent failing through its subtests is left out), panics, -v', () => {
    expect(ids(output('go-test.log'))).toEqual([
      'go',
      [
        'example.com/cart::TestTotal',
        'example.com/cart::TestTable/one',
        'example.com/cart::TestTable/two',
        'example.com/cart/money::TestFormat',
      ],
    ]);
    const panic = parseTestFailures(output('go-test-panic.log'), { cwd: '/tmp/goproj' });
    expect(panic?.failures[1]).toMatchObject({
      id: 'example.com/cart::TestEmpty',
      location: 'cart_test.go:12',
      message: 'panic: runtime error: slice bounds out of range [1:0]',
    });
    expect(
      parseTestFailures(output('go-test-v.log'), { cwd: '/tmp/goproj' })?.failures.map((t) => [
        t.id,
        t.location,
        t.message,
      ]),
    ).toEqual(panic?.failures.map((t) => [t.id, t.location, t.message]));
    // A package that did not build: the compile error comes first.
    expect(extractFailure(output('go-test-build-failed.log'))).toMatchObject({
      error_type: 'compile_error',
      location: './cart.go:11',
      root_cause: 'undefined: summ',
    });
  });

  it("how many tests ran, by the runner's own count", () => {
    const ran = (name: string): number | null | undefined => parseTestFailures(output(name))?.ran;
    expect([
      ran('jest.log'),
      ran('vitest.log'),
      ran('pytest.log'),
      ran('cargo-test.log'),
      ran('rspec.log'),
      ran('go-test.log'),
      ran('mocha-body-parser-broken-merge.log'),
    ]).toEqual([4, 4, 6, 4, 4, null, 131]);
    expect(parseTestFailures('', { junit: { paths: [join(outputs, 'pytest.junit.xml')] } })?.ran).toBe(6);
  });

  it("a run stopped early only where the runner's own output says so: pytest -x, --maxfail, an interrupted collection, mocha --bail", () => {
    const stopped = (name: string, options: ParseTestOptions = {}): string | null | undefined =>
      parseTestFailures(output(name), options)?.stopped;
    expect(stopped('pytest-werkzeug-f6b72e8-x.log')).toBe('pytest: stopping after 1 failures (-x or --maxfail)');
    expect(stopped('pytest-werkzeug-f6b72e8-maxfail.log')).toBe('pytest: stopping after 3 failures (-x or --maxfail)');
    expect(stopped('pytest-werkzeug-0bee9ae-interrupted.log')).toBe('pytest: Interrupted: 1 error during collection');
    expect(parseTestFailures(output('pytest-werkzeug-f6b72e8-x.log'))).toMatchObject({
      runner: 'pytest',
      failures: [{ id: 'tests/test_routing.py::test_basic_routing' }],
      ran: 197,
    });
    // runs to their end, whatever they ran: no stop
    for (const name of ['pytest.log', 'jest.log', 'vitest.log', 'cargo-test.log', 'rspec.log', 'go-test.log'])
      expect(stopped(name), name).toBeNull();
    // mocha without --bail (the broken merge was run without it), and with it only where a test failed
    expect(stopped('mocha-body-parser-broken-merge.log')).toBeNull();
    expect(stopped('mocha-body-parser-ee91374.log')).toBeNull();
    // the flag on the configured command counts as on npm's echo of the script
    expect(stopped('mocha-body-parser-broken-merge.log', { command: 'npx mocha --bail test/' })).toBe(
      'mocha ran with --bail, which stops at the first failing test',
    );
    expect(stopped('mocha-body-parser-broken-merge.log', { command: 'npx mocha --check-leaks test/' })).toBeNull();
    expect(stopped('jest.log', { command: 'npx jest --ci --bail' })).toBe(
      'jest ran with --bail, which stops at the first failing test',
    );
  });

  it('cargo test and rspec', () => {
    const cargo = parseTestFailures(output('cargo-test.log'));
    expect(cargo?.failures.map((t) => [t.id, t.location, t.message])).toEqual([
      ['src/lib.rs::tests::total_sums_all', 'src/lib.rs:15', 'assertion `left == right` failed left: 5 right: 6'],
      ['src/lib.rs::tests::format_pads_cents', 'src/lib.rs:25', 'format(105) gave 1.5'],
      ['src/lib.rs::tests::unwraps', 'src/lib.rs:31', 'called `Option::unwrap()` on a `None` value'],
    ]);
    const rspec = parseTestFailures(output('rspec.log'));
    expect(rspec?.failures.map((t) => [t.id, t.location, t.message])).toEqual([
      [
        'spec/cart_spec.rb > Cart raises nothing',
        'spec/cart_spec.rb:21',
        "NoMethodError: undefined method `drop' for nil:NilClass",
      ],
      ['spec/cart_spec.rb > Cart#total sums every price', 'spec/cart_spec.rb:6', 'expected: 6 got: 5'],
      [
        'spec/cart_spec.rb > Cart when formatting pads the cents',
        'spec/cart_spec.rb:16',
        'expected: "1.05" got: "1.5"',
      ],
    ]);
    expect(extractFailure(output('rspec.log'))?.root_cause).toBe(
      '"Cart raises nothing" — NoMethodError: undefined method `drop\' for nil:NilClass (and 2 more failing tests)',
    );
  });

  it('JUnit XML from mocha (xunit), pytest and vitest, as files or a directory; reports older than the run are ignored', () => {
    const dir = tempDir();
    for (const name of ['mocha-body-parser-broken-merge.xunit.xml', 'pytest.junit.xml', 'vitest.junit.xml'])
      writeFileSync(join(dir, name), output(name));
    writeFileSync(join(dir, 'broken.xml'), '<testsuite><testcase name="x">');
    const parsed = parseTestFailures('no test output here', { junit: { paths: [dir] }, cwd: '/tmp/bp' });
    expect(parsed?.runner).toBe('junit');
    expect(parsed?.failures.map((t) => [t.id, t.location])).toEqual([
      ['bodyParser.json() with strict option when undefined > should 400 on primitives', 'test/json.js:230'],
      ['bodyParser.json() with strict option when true > should not parse primitives', 'test/json.js:258'],
      [
        'bodyParser.json() with strict option when true > should not parse primitives with leading whitespaces',
        'test/json.js:266',
      ],
      [
        'bodyParser.json() with strict option when true > should include correct message in stack trace',
        'test/json.js:681',
      ],
      [
        'bodyParser.urlencoded() with extended option when true > should parse array index notation with large array',
        'test/urlencoded.js:160',
      ],
      ['tests.test_cart > test_total', 'tests/test_cart.py:7'],
      ['tests.test_cart.TestDiscount > test_too_much', 'tests/test_cart.py:19'],
      ['tests.test_cart > test_table[10-20-7]', 'tests/test_cart.py:24'],
      ['test/cart.test.js > cart > sums every price', 'test/cart.test.js:6'],
      ['test/cart.test.js > cart > format > pads the cents', 'test/cart.test.js:13'],
      ['test/cart.test.js > top level throws', 'test/cart.test.js:19'],
    ]);
    expect(parsed?.failures[4]?.message).toBe('Expected values to be strictly equal: false !== true');
    expect(parsed?.failures[8]).toMatchObject({
      title: 'sums every price',
      message: 'AssertionError: expected 5 to be 6 // Object.is equality',
    });
    // One file by path; an XML report written before the run started is stale, and the log is read instead.
    expect(ids('', { junit: { paths: [join(dir, 'pytest.junit.xml')] } })[1]).toHaveLength(3);
    expect(ids(output('vitest.log'), { junit: { paths: [dir], since: Date.now() + 60_000 } })[0]).toBe('vitest');
    expect(extractFailure('', { junit: { paths: [join(dir, 'vitest.junit.xml')] } })?.root_cause).toMatch(
      /^"sums every price" — AssertionError: expected 5 to be 6/,
    );
  });

  it('null when no test names can be read', () => {
    expect(parseTestFailures('make: *** [all] Error 1\n')).toBeNull();
    expect(parseTestFailures('', { junit: { paths: ['/nonexistent/report.xml'] } })).toBeNull();
  });

  it('a real vitest run through the CheckRunner', async () => {
    const vitest = join(here, '../../node_modules/.bin/vitest');
    const dir = tempDir();
    symlinkSync(join(here, '../../node_modules'), join(dir, 'node_modules'));
    const log = await realLogIn(
      dir,
      {
        'package.json': '{"type":"module"}',
        'vitest.config.js': 'export default {};\n',
        'sum.test.js': "import { expect, it } from 'vitest';\nit('adds', () => {\n  expect(1 + 1).toBe(3);\n});\n",
      },
      `NO_COLOR=1 ${vitest} run`,
    );
    expect(parseTestFailures(log, { cwd: dir })?.failures).toEqual([
      expect.objectContaining({
        id: 'sum.test.js > adds',
        location: 'sum.test.js:3',
        message: 'AssertionError: expected 2 to be 3 // Object.is equality',
      }),
    ]);
  });
});

describe('baselines on the real body-parser histories', () => {
  const outcome = (name: string, passed = false) => sideOutcome(passed, parseTestFailures(output(name)));

  it('1.19.2: the test failing on both tips (Node 20) is not blamed on the merge; the run stopped there (--bail), so it validates nothing', () => {
    const tip = outcome('mocha-body-parser-fbd9664.log');
    expect(
      compareWithBaselines(outcome('mocha-body-parser-424dadd.log'), {
        fork: tip,
        upstream: outcome('mocha-body-parser-424dadd.log'),
      }),
    ).toMatchObject({
      verdict: 'inherited_only',
      by: 'tests',
      blamed: [],
      inherited: [strictPrimitives],
      incomplete: true,
    });
  });

  it('1.20.2: the fork tip stopped at its own failure (--bail) and upstream passed; a broken merge run in full blames what neither tip showed, and says the fork tip stopped early', () => {
    const fork = outcome('mocha-body-parser-3f5e93e.log');
    const upstream = outcome('mocha-body-parser-ee91374.log', true);
    expect([fork.ran, upstream.ran]).toEqual([62, 257]);
    const result = compareWithBaselines(outcome('mocha-body-parser-broken-merge.log'), { fork, upstream });
    expect(result).toMatchObject({
      verdict: 'new_failures',
      by: 'tests',
      inherited: [strictPrimitives],
      incomplete: true,
    });
    expect(result.blamed).toHaveLength(5);
    expect(result.reason).toBe(
      '5 tests failing on the merge and on neither tip; 1 test also failing on a tip not blamed; the fork tip stopped early (mocha ran with --bail, which stops at the first failing test), so some tests blamed here may never have run there',
    );
    expect([blamesResolutions(result), validates(result)]).toEqual([true, false]);
    // The merge run the same way as the fork tip (npm test, --bail) stops at the same inherited failure: nothing blamed, but said to be short,
    // and not a validation: the 195 tests behind it never ran.
    const stopped = compareWithBaselines(fork, { fork, upstream });
    expect(stopped).toMatchObject({ verdict: 'inherited_only', incomplete: true });
    expect([blamesResolutions(stopped), validates(stopped)]).toEqual([false, false]);
  });

  it('the failure summary of that broken merge leads with a blamed test, lists the blamed ones, and names the inherited one as not blamed', () => {
    const fork = outcome('mocha-body-parser-3f5e93e.log');
    const merged = outcome('mocha-body-parser-broken-merge.log');
    const { blamed } = compareWithBaselines(merged, { fork, upstream: outcome('mocha-body-parser-ee91374.log', true) });
    const summary = extractFailure(output('mocha-body-parser-broken-merge.log'), { blamed });
    expect(summary?.location).not.toBe('test/json.js:230');
    expect(blamed).toContain(
      summary?.location
        ? parseTestFailures(output('mocha-body-parser-broken-merge.log'))?.failures.find(
            (t) => t.location === summary.location,
          )?.id
        : null,
    );
    expect(summary?.excerpt).toContain('Blamed on the resolutions, failing on no baseline (mocha, 5):');
    expect(summary?.excerpt).toContain(
      `Failing on a tip too, not blamed (1):\n  ${strictPrimitives} (test/json.js:230)`,
    );
  });
});
