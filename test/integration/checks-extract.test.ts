import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CheckRunner } from '../../src/checks/check-runner.js';
import { extractFailure } from '../../src/checks/extract-failure.js';
import { tempDir } from '../helpers/git-repo.js';

const here = resolve(fileURLToPath(new URL('.', import.meta.url)));
const logs = join(here, '../fixtures/logs');
const tsc = join(here, '../../node_modules/.bin/tsc');
const captured = (name: string): string => readFileSync(join(logs, name), 'utf8');

/** Run a real tool through the real CheckRunner and return its log. */
async function realLog(files: Record<string, string>, command: string): Promise<string> {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const runner = new CheckRunner({ workdir: dir, outputDir: join(dir, 'logs'), commands: { c: command }, timeoutSec: 60, killGraceSec: 1 });
  const result = await runner.run('c');
  expect(result.success).toBe(false);
  return readFileSync(result.logFile, 'utf8');
}

describe('extractFailure on real tool output', () => {
  it('gcc under make: the compiler error, not make\'s summary', async () => {
    const log = await realLog(
      { 'a.c': 'int ok(void) { return 0; }\nint main(void) {\n  return missing_value;\n}\n', Makefile: 'all:\n\tgcc -c a.c -o a.o\n' },
      'make',
    );
    expect(log).toMatch(/make: \*\*\*/);
    expect(extractFailure(log)).toMatchObject({ error_type: 'compile_error', location: 'a.c:3', root_cause: expect.stringContaining('missing_value') });
  });

  it('gcc link error: the undefined reference', async () => {
    const log = await realLog({ 'b.c': 'int helper(void);\nint main(void) { return helper(); }\n' }, 'gcc b.c -o b');
    expect(extractFailure(log)).toMatchObject({ error_type: 'link_error', root_cause: expect.stringContaining('helper') });
  });

  it('tsc: file(line,col): error TSxxxx', async () => {
    const log = await realLog({ 'x.ts': 'const n: number = 1;\nconst s: string = n;\nexport {};\n' }, `${tsc} --noEmit --strict --pretty false x.ts`);
    expect(extractFailure(log)).toMatchObject({ error_type: 'compile_error', location: 'x.ts:2', root_cause: expect.stringMatching(/^TS2322: Type 'number' is not assignable/) });
  });

  it('node assertion in a test script', async () => {
    const log = await realLog({ 't.mjs': "import assert from 'node:assert';\nassert.strictEqual(1 + 1, 3, 'sum is wrong');\n" }, 'node t.mjs');
    const summary = extractFailure(log);
    expect(summary).toMatchObject({ error_type: 'test_failure', root_cause: expect.stringContaining('sum is wrong') });
    expect(summary?.location).toMatch(/t\.mjs:2$/);
  });

  it('captured logs of rustc, cargo test, pytest, ninja and vitest', () => {
    expect(extractFailure(captured('rustc-undefined.log'))).toMatchObject({ error_type: 'compile_error', location: 'main.rs:3', root_cause: 'E0425: cannot find value `y` in this scope' });
    expect(extractFailure(captured('cargo-test.log'))).toMatchObject({ error_type: 'test_failure', location: 'src/main.rs:3', root_cause: expect.stringContaining('t::two') });
    expect(extractFailure(captured('pytest-assert.log'))).toMatchObject({ error_type: 'test_failure', location: 'test_calc.py::test_add', root_cause: 'assert 0 == 4' });
    expect(extractFailure(captured('ninja-gcc.log'))).toMatchObject({ error_type: 'compile_error', location: 'a.c:1', root_cause: expect.stringContaining('undefined_var') });
    expect(extractFailure(captured('vitest-assert.log'))).toMatchObject({ error_type: 'test_failure', location: 'cart.test.mjs > cart > adds totals', root_cause: expect.stringMatching(/^AssertionError: expected 2 to be 3/) });
  });

  it('samples in the exact formats of go and jest', () => {
    expect(extractFailure(captured('go-test.sample.log'))).toMatchObject({ error_type: 'test_failure', location: 'cart_test.go:14', root_cause: 'Total() = 5, want 6' });
    expect(extractFailure(captured('go-build.sample.log'))).toMatchObject({ error_type: 'compile_error', location: './cart.go:12', root_cause: 'undefined: totl' });
    expect(extractFailure(captured('jest.sample.log'))).toMatchObject({ error_type: 'test_failure', location: 'src/cart.test.js' });
  });

  it('timeouts, and logs with no recognisable error', () => {
    expect(extractFailure('building...\nstill building...', { timedOut: true })).toMatchObject({ error_type: 'timeout', location: null });
    expect(extractFailure('all good\nnothing to see\n')).toBeNull();
  });
});
