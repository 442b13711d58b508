import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareWithBaselines, sideOutcome } from '../baseline.js';
import { parseTestFailures } from './index.js';

const fixtures = join(import.meta.dirname, '../../../test/fixtures/checks/test-output');
const read = (name: string, cwd: string) => parseTestFailures(readFileSync(join(fixtures, name), 'utf8'), { cwd });
const ids = (name: string, cwd: string) => read(name, cwd)?.failures.map((f) => f.id);

describe('mocha, from 1.21 to 10.7 (the same four failures, test/fixtures/checks/test-output/mocha-uncaught)', () => {
  const cwd = '/tmp/mproj';
  it('mocha 2 and 3 number a failure at the root with two spaces: "  1)  Uncaught error outside test suite:"', () => {
    for (const version of ['2.5.3', '3.5.3']) {
      const read2 = read(`mocha-${version}-uncaught.log`, cwd);
      expect(read2?.failures.map((f) => [f.id, f.message, f.location])).toEqual([
        ['Uncaught error outside test suite', 'Uncaught Error: outside the suite', 'test/b.js:4'],
        ['top-level fails', 'TypeError: obj.removed is not a function', 'test/a.js:8'],
        ['parser json parses numbers', 'AssertionError [ERR_ASSERTION]: 1 == 2', 'test/a.js:4'],
        ['hooks "before all" hook', 'Error: boom', 'test/a.js:10'],
      ]);
      expect([read2?.ran, read2?.failed]).toEqual([6, 4]);
    }
    expect(ids('mocha-2.5.3-dot.log', cwd)).toEqual(ids('mocha-2.5.3-uncaught.log', cwd));
  });

  it('mocha 1 (colours forced, absolute stack paths) reads as mocha 2 does', () => {
    const r = read('mocha-1.21.5-uncaught.log', cwd);
    expect(r?.failures.map((f) => [f.id, f.location])).toEqual([
      ['top-level fails', 'test/a.js:8'],
      ['parser json parses numbers', 'test/a.js:4'],
      ['hooks "before all" hook', 'test/a.js:10'],
    ]);
  });

  it('mocha 4 and later print the title path one part per line', () => {
    expect(ids('mocha-4.1.0-uncaught.log', cwd)).toEqual([
      'Uncaught error outside test suite',
      'top-level fails',
      'parser > json > parses numbers',
      'hooks > "before all" hook',
    ]);
  });

  it("mocha 10 ends at an error outside any test: its epilogue names it; the spec list after it is not a failure's", () => {
    const r = read('mocha-10.7.3-uncaught.log', cwd);
    expect(r?.failures.map((f) => f.id)).toEqual(['Uncaught error outside test suite']);
    expect([r?.ran, r?.failed]).toEqual([1, 1]);
  });

  it('a side on mocha 2 and a side on mocha 10 name the same test alike: only the new failure is blamed', () => {
    const fork = sideOutcome(false, read('mocha-2.5.3-uncaught.log', cwd));
    const merged = sideOutcome(false, {
      ...read('mocha-4.1.0-uncaught.log', cwd)!,
      failures: [
        ...read('mocha-4.1.0-uncaught.log', cwd)!.failures,
        { id: 'parser > json > parses dates', title: 'parses dates', message: 'm', location: null, excerpt: '' },
      ],
    });
    const c = compareWithBaselines(merged, { fork, upstream: { passed: true, failing: [] } });
    expect([c.verdict, c.blamed, c.inherited.length]).toEqual(['new_failures', ['parser > json > parses dates'], 4]);
  });
});

describe('jest 24 to 29 and vitest 0.34 to 4 (the same project, test/fixtures/checks/test-output/js-math)', () => {
  const cwd = '/tmp/jsproj';
  const math = ['math > add > adds two numbers', 'math > throws', 'top level fails'];
  it('jest names each failure by file and title path, and the file that failed to load', () => {
    for (const version of ['24.9.0', '27.5.1']) {
      const r = read(`jest-${version}.log`, cwd);
      expect(r?.failures.map((f) => f.id)).toEqual([
        ...math.map((t) => `test/math.test.js > ${t}`),
        'test/broken.test.js > Test suite failed to run',
      ]);
      expect([r?.runner, r?.ran, r?.failed]).toEqual(['jest', 4, 3]);
    }
  });

  it('vitest names them alike in every version, with the file that failed to load', () => {
    for (const version of ['0.34.6', '2.1.9', '3.2.4']) {
      const r = read(`vitest-${version}.log`, cwd);
      expect(r?.failures.map((f) => [f.id, f.location])).toEqual([
        ['test/broken.test.js', 'test/broken.test.js:1'],
        ...math.map((t, k) => [`test/math.test.js > ${t}`, `test/math.test.js:${[4, 7, 9][k]}`]),
      ]);
      expect([r?.runner, r?.ran, r?.failed]).toEqual(['vitest', 4, 3]);
    }
  });
});

describe('pytest, with and without the short summary', () => {
  const cwd = '/tmp/pyproj';
  const expected = [
    'tests/test_calc.py::test_uses_broken',
    'tests/test_calc.py::test_add',
    'tests/test_calc.py::TestCalc::test_div',
    'tests/test_calc.py::test_even[1]',
  ];
  it('pytest 9: setup errors and failures by node id, counted', () => {
    const r = read('pytest-9-setup-error.log', cwd);
    expect(r?.failures.map((f) => f.id)).toEqual(expected);
    expect([r?.ran, r?.failed]).toEqual([6, 4]);
  });

  it('pytest before 6 (no short summary by default, "in 0.05 seconds") gives the same node ids', () => {
    const log = readFileSync(join(fixtures, 'pytest-9-setup-error.log'), 'utf8')
      .replace('pytest-9.0.3, pluggy-1.6.0', 'pytest-4.6.11, py-1.8.0, pluggy-0.12.0')
      .replace(/^=+ short test summary info =+\n(?:(?:FAILED|ERROR) .*\n)+/m, '')
      .replace('3 failed, 2 passed, 1 error in 1.02s', '3 failed, 2 passed, 1 error in 0.05 seconds');
    expect(log).not.toContain('short test summary');
    const r = parseTestFailures(log, { cwd });
    expect(r?.failures.map((f) => f.id)).toEqual(expected);
    expect([r?.ran, r?.failed]).toEqual([6, 4]);
  });
});

describe('cargo and go test, older formats', () => {
  it('Rust before 1.73 quotes the message on the panic line, over several lines for assert_eq!', () => {
    const log = [
      '     Running target/debug/deps/rsproj-9f7d49ed058f6a75',
      '',
      'running 2 tests',
      'test tests::total_empty ... ok',
      'test tests::total_sums_all ... FAILED',
      '',
      'failures:',
      '',
      '---- tests::total_sums_all stdout ----',
      "thread 'tests::total_sums_all' panicked at 'assertion failed: `(left == right)`",
      '  left: `5`,',
      " right: `6`', src/lib.rs:15:9",
      'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
      '',
      '',
      'failures:',
      '    tests::total_sums_all',
      '',
      'test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out',
      '',
    ].join('\n');
    const r = parseTestFailures(log, { cwd: '/tmp/rsproj' });
    expect(r?.failures.map((f) => [f.id, f.message, f.location])).toEqual([
      [
        'target/debug/deps/rsproj::tests::total_sums_all',
        'assertion failed: `(left == right)` left: `5`, right: `6`',
        'src/lib.rs:15',
      ],
    ]);
    expect([r?.ran, r?.failed]).toEqual([2, 1]);
  });

  it('early go test printed durations as "(0.00 seconds)"', () => {
    const log = [
      '--- FAIL: TestTotal (0.00 seconds)',
      '\tcart_test.go:7: Total() = 5, want 6',
      'FAIL',
      'FAIL\texample.com/cart\t0.004s',
    ].join('\n');
    expect(parseTestFailures(log)?.failures.map((f) => [f.id, f.location])).toEqual([
      ['example.com/cart::TestTotal', 'cart_test.go:7'],
    ]);
  });
});

describe("node:test's reporters (Node 20.20): TAP and spec name the same failures", () => {
  it('the same suites > test identities from either reporter, so a check that changes reporter compares alike', () => {
    const tap = ids('node-test-tap.log', '/tmp/nodetap');
    expect(tap).toEqual(['math > multiplies', 'math > division > divides', 'throws']);
    expect(ids('node-test-spec.log', '/tmp/nodespec')).toEqual(tap);
    // The spec captures' test file, with a todo test that fails, as TAP: the todo is no failure either way.
    expect(ids('node-test-tap-todo.log', '/tmp/nodespec')).toEqual(tap);
    expect(read('node-test-tap-todo.log', '/tmp/nodespec')?.failed).toBe(3);
    expect(read('node-test-spec.log', '/tmp/nodespec')?.failures.map((f) => f.message)).toEqual(
      read('node-test-tap.log', '/tmp/nodetap')?.failures.map((f) => f.message),
    );
  });

  it('six ✖ lines in the tree and four in the closing list are three failures: no suite failed by its tests, no todo, no repeat', () => {
    const log = readFileSync(join(fixtures, 'node-test-spec.log'), 'utf8');
    const [tree, list] = log.split('✖ failing tests:\n') as [string, string];
    expect(read('node-test-spec.log', '/tmp/nodespec')?.failures).toHaveLength(3);
    expect(tree.match(/^\s*✖ /gm)).toHaveLength(6);
    expect(list.match(/^✖ /gm)).toHaveLength(4);
  });
});
