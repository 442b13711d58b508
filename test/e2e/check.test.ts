import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo, tempDir } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

function project(): string {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'splintercat.yaml'),
    [
      'check:',
      '  timeout: 30',
      '  commands:',
      '    build: echo building && echo warning >&2',
      '    test: echo one && echo two && exit 4',
      '',
    ].join('\n'),
  );
  return dir;
}

describe('splintercat check', () => {
  it('passes: exit 0, output streamed to stderr, the seed summary on stdout, log under .splintercat/logs', async () => {
    const dir = project();
    const run = await runCli(['check', 'build'], dir);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('building');
    expect(run.stdout).toMatch(
      new RegExp(
        `^Check 'build' PASSED\\n\\nCompleted in [0-9.]+ seconds\\nLog: ${dir}/\\.splintercat/logs/build-\\d{8}-\\d{6}\\.log\\n$`,
      ),
    );
  });

  it('fails: exit 1 with the return code and the last lines; --json gives the CheckResult', async () => {
    const dir = project();
    const run = await runCli(['check', 'test'], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Check 'test' FAILED\nReturncode: 4\n/);
    expect(run.stdout).toContain('Last 2 lines of output:\none\ntwo\n');
    // No parser knows this output: the workflow's summary names the check and its exit code.
    expect(run.stdout).toMatch(/\nFailure: test_failure: check 'test' failed with exit code 4\n$/);
    const json = await runCli(['check', 'test', '--json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({
      name: 'test',
      success: false,
      exitCode: 4,
      tail: ['one', 'two'],
      summary: { error_type: 'test_failure', location: null },
    });
  });

  it('fails on a compiler error: prints the summary the workflow makes, with the file and line', async () => {
    const dir = project();
    writeFileSync(join(dir, 'cc.sh'), `echo 'src/app.c:12:5: error: expected ";" before "}" token' >&2\nexit 1\n`);
    writeFileSync(join(dir, 'splintercat.yaml'), ['check:', '  commands:', '    build: sh cc.sh', ''].join('\n'));
    const run = await runCli(['check', 'build'], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\nFailure: compile_error at src\/app\.c:12: .*expected ";" before "}" token/);
  });

  it('unknown check: exit 2, lists the defined checks, no stack trace', async () => {
    const run = await runCli(['check', 'lint'], project());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Check 'lint' is not defined");
    expect(run.stderr).toContain('Defined checks: build, test');
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  });

  it("from a linked worktree with no run: the main checkout's splintercat.yaml, run there, logged there", async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': 'a\n' });
    writeFileSync(join(repo.dir, 'splintercat.yaml'), ['check:', '  commands:', '    where: pwd', ''].join('\n'));
    const linked = join(tempDir(), 'wt');
    repo.sh('worktree', 'add', '-q', '--detach', linked, 'main');
    const run = await runCli(['check', 'where', '--json'], linked);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { logFile: string; tail: string[] };
    expect(result.tail).toEqual([repo.dir]);
    expect(result.logFile.startsWith(join(repo.dir, '.splintercat', 'logs'))).toBe(true);
  });
});
