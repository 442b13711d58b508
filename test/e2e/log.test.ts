import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { repoRoot, runCli } from '../fixtures/resolve/cli.js';
import { buildRunFixture } from '../fixtures/store/run-fixture.js';
import { finishedRun } from '../fixtures/workflow/finished-run.js';

/** `splintercat log --follow -n 1` in `cwd`: resolves once `until` matched a line, with every line seen; then interrupted. */
async function follow(
  cwd: string,
  onFirst: () => void,
  until: RegExp,
): Promise<{ lines: string[]; code: number | null }> {
  const cli = [resolve(repoRoot, 'node_modules/tsx/dist/loader.mjs'), resolve(repoRoot, 'src/cli/main.ts')];
  const proc = spawn(process.execPath, ['--import', ...cli, 'log', '--follow', '-n', '1'], {
    cwd,
    env: { ...process.env, ...testGitEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const closed = new Promise<number | null>((done, fail) => {
    proc.on('error', fail);
    proc.on('close', done);
  });
  const lines: string[] = [];
  await new Promise<void>((seen, fail) => {
    proc.on('error', fail);
    createInterface({ input: proc.stdout }).on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) onFirst();
      if (until.test(line)) seen();
    });
  });
  proc.kill('SIGINT');
  return { lines, code: await closed };
}

describe('splintercat log', () => {
  it("prints the run's log readably (the last 50 entries, -n N), its path, its JSON lines, or follows it", async () => {
    const repo = await finishedRun();
    const log = join(repo.dir, '.splintercat', 'logs', 'splintercat.log');

    expect(await runCli(['log', '--path'], repo.dir)).toMatchObject({ code: 0, stdout: `${log}\n` });

    const tail = await runCli(['log'], repo.dir);
    expect(tail.code).toBe(0);
    const lines = tail.stdout.trimEnd().split('\n');
    const written = readFileSync(log, 'utf8').trimEnd().split('\n').length;
    expect(lines).toHaveLength(Math.min(50, written));
    expect(lines.every((l) => /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] (DEBUG|INFO|DECISION|WARN|ERROR):/.test(l))).toBe(
      true,
    );
    expect(tail.stdout).toMatch(/DECISION: \[finalize\] main is now [0-9a-f]{12}/);

    const three = await runCli(['log', 'up', '-n', '3'], repo.dir);
    expect(three.stdout.trimEnd().split('\n')).toEqual(lines.slice(-3));

    const json = await runCli(['log', '-n', '2', '--json'], repo.dir);
    const entries = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(entries.map((e) => typeof e.msg)).toEqual(['string', 'string']);

    // Another process writes an entry in two pieces once the last one is printed.
    const followed = await follow(
      repo.dir,
      () => {
        appendFileSync(log, '{"level":40,"time":1767225600000,"msg":"a warning from ');
        appendFileSync(log, 'elsewhere"}\n');
      },
      /WARN: a warning from elsewhere$/,
    );
    expect(followed.lines).toEqual([lines.at(-1), expect.stringMatching(/WARN: a warning from elsewhere$/)]);
    expect(followed.code).toBe(0);
  });

  it('bad input: no run, an unknown run, no log yet, a bad -n: what to do, non-zero exit, no stack trace', async () => {
    const empty = TestRepo.create();
    const none = await runCli(['log'], empty.dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/There is no splintercat merge in this repository/);
    expect(none.stderr).toMatch(/splintercat merge SOURCE/);

    // A run no command has logged for yet (its state written directly).
    const repo = TestRepo.create();
    await buildRunFixture(repo, 'up');
    const unknown = await runCli(['log', 'nope'], repo.dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/There is no splintercat run named 'nope'/);
    expect(unknown.stderr).toMatch(/Runs found: up/);
    expect(unknown.stderr).toMatch(/splintercat log up/);

    const count = await runCli(['log', '-n', 'ten'], repo.dir);
    expect(count.code).toBe(2);
    expect(count.stderr).toMatch(/a whole number of lines/);

    const log = join(repo.dir, '.splintercat', 'logs', 'splintercat.log');
    const nothing = await runCli(['log'], repo.dir);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain(`The run 'up' has no log: ${log} does not exist`);
    expect(nothing.stderr).toMatch(/splintercat status --name up/);
    for (const run of [none, unknown, count, nothing]) expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
