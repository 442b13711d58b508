import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CheckRunner } from '../../src/checks/check-runner.js';
import { formatCheckResult } from '../../src/checks/format.js';
import { probeBwrap } from '../../src/checks/sandbox.js';
import type { SandboxMode } from '../../src/config/schema.js';
import { SplintercatError } from '../../src/errors/index.js';
import { tempDir } from '../helpers/git-repo.js';

const fixtures = resolve(fileURLToPath(new URL('.', import.meta.url)), '../fixtures/checks');

function runner(
  commands: Record<string, string>,
  over: { timeoutSec?: number; killGraceSec?: number; sandbox?: SandboxMode } = {},
) {
  const dir = tempDir();
  const outputDir = join(dir, 'logs', 'nested');
  const r = new CheckRunner({
    workdir: dir,
    outputDir,
    commands,
    timeoutSec: over.timeoutSec ?? 30,
    killGraceSec: over.killGraceSec ?? 1,
    sandbox: over.sandbox ?? 'off',
    // The fixture scripts live outside the check's directory: shown to it read-only.
    readable: [fixtures],
  });
  return { r, dir, outputDir };
}

/** A process that exists and is not a zombie (killed processes may wait to be reaped by init). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Host pids of live processes started with CHECK_TAG=tag in their environment. Inside the
 * sandbox `$!` is a pid of its own namespace, so processes are found from outside by a tag.
 */
function tagged(tag: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`CHECK_TAG=${tag}`) && alive(pid);
      } catch {
        return false;
      }
    });
}

/** Poll (bounded) until at least `n` tagged processes run: a forked job may not have exec'd yet when the check says "started". */
async function waitTagged(tag: string, n: number): Promise<number[]> {
  const deadline = Date.now() + 5000;
  let found = tagged(tag);
  while (found.length < n && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    found = tagged(tag);
  }
  return found;
}

const modes: SandboxMode[] = probeBwrap().ok ? ['off', 'bwrap'] : ['off'];

describe.each(modes)('CheckRunner process groups (sandbox %s)', (sandbox) => {
  it('times out: the whole process group, grandchildren included, is gone within timeout + grace', async () => {
    const tag = `t${process.pid}-${Date.now()}`;
    const { r, dir } = runner(
      { slow: `export CHECK_TAG=${tag}; sh -c 'sleep 100 & sleep 100' & ${fixtures}/spawn-tree.sh pids` },
      { timeoutSec: 1, killGraceSec: 1, sandbox },
    );
    let seen: Promise<number[]> = Promise.resolve([]);
    const started = Date.now();
    const result = await r.run('slow', {
      onOutput: (c) => void (c.includes('started') && (seen = waitTagged(tag, 6))),
    });
    expect(Date.now() - started).toBeLessThan(1000 + 1000 + 1500);
    expect(result).toMatchObject({ success: false, timedOut: true, sandboxed: sandbox === 'bwrap' });
    expect(readFileSync(join(dir, 'pids'), 'utf8').trim().split('\n')).toHaveLength(2);
    const pids = await seen;
    expect(pids).toHaveLength(6); // spawn-tree.sh and its two sleeps, sh -c and its two sleeps
    expect(pids.filter(alive)).toEqual([]);
    expect(tagged(tag)).toEqual([]);
    expect(readFileSync(result.logFile, 'utf8')).toContain('TIMEOUT after 1 seconds');
    expect(formatCheckResult(result)).toMatch(/^Check 'slow' TIMEOUT/);
  });

  it('stops on an abort signal, killing the group', async () => {
    const tag = `a${process.pid}-${Date.now()}`;
    const { r } = runner({ slow: `CHECK_TAG=${tag} ${fixtures}/spawn-tree.sh pids` }, { sandbox });
    const controller = new AbortController();
    let seen: Promise<number[]> = Promise.resolve([]);
    const done = await r.run('slow', {
      signal: controller.signal,
      onOutput: (c) => {
        if (!c.includes('started')) return;
        seen = waitTagged(tag, 3).then((pids) => {
          controller.abort();
          return pids;
        });
      },
    });
    expect(done.success).toBe(false);
    expect(done.signal === 'SIGTERM' || done.exitCode !== 0).toBe(true);
    const pids = await seen;
    expect(pids).toHaveLength(3); // spawn-tree.sh and its two sleeps
    expect(pids.filter(alive)).toEqual([]);
  });

  it('background jobs left by a passing check are gone when it returns', async () => {
    const tag = `b${process.pid}-${Date.now()}`;
    // The check ends once the test has seen its jobs (it creates `go`).
    const { r, dir } = runner(
      {
        bg: `export CHECK_TAG=${tag}; (sleep 100 &) ; sleep 100 & echo started; while [ ! -e go ]; do sleep 0.01; done`,
      },
      { sandbox },
    );
    let seen: Promise<number[]> = Promise.resolve([]);
    const result = await r.run('bg', {
      onOutput: (c) => {
        if (!c.includes('started')) return;
        seen = waitTagged(tag, 2).then((pids) => {
          writeFileSync(join(dir, 'go'), '');
          return pids;
        });
      },
    });
    expect(result.success).toBe(true);
    expect((await seen).length).toBeGreaterThanOrEqual(2); // the two sleeps (a subshell may not have exited yet)
    expect(tagged(tag)).toEqual([]);
  });
});

describe('CheckRunner', () => {
  it('passes: output in the log file (dir created) and the tail, seed format', async () => {
    const { r, outputDir } = runner({ build: 'echo compiling; echo done >&2' });
    const chunks: string[] = [];
    const result = await r.run('build', { onOutput: (c) => chunks.push(c) });
    expect(result).toMatchObject({ name: 'build', success: true, exitCode: 0, timedOut: false, signal: null });
    expect(result.logFile.startsWith(outputDir)).toBe(true);
    expect(result.logFile).toMatch(/build-\d{8}-\d{6}\.log$/);
    expect(readFileSync(result.logFile, 'utf8')).toContain('compiling');
    expect(readFileSync(result.logFile, 'utf8')).toContain('done');
    expect(result.tail).toEqual(expect.arrayContaining(['compiling', 'done']));
    expect(chunks.join('')).toContain('compiling');
    expect(formatCheckResult(result)).toMatch(
      /^Check 'build' PASSED\n\nCompleted in \d+\.\d seconds\nLog: .*build-.*\.log$/,
    );
  });

  it('fails: keeps the exit code and shows the last 30 lines', async () => {
    const { r } = runner({ test: 'for i in $(seq 1 50); do echo line $i; done; exit 3' });
    const result = await r.run('test');
    expect(result).toMatchObject({ success: false, exitCode: 3, timedOut: false });
    expect(result.tail).toHaveLength(30);
    expect(result.tail[0]).toBe('line 21');
    const text = formatCheckResult(result);
    expect(text).toMatch(/^Check 'test' FAILED\nReturncode: 3\nCompleted in/);
    expect(text).toContain('Last 30 lines of output:\nline 21\n');
    expect(text).toMatch(/\n\nFull log: .*test-.*\.log$/);
  });

  it('unknown check name: a usage error listing the defined checks', async () => {
    const { r } = runner({ build: 'true', test: 'true' });
    const error = await r.run('bild').catch((e: unknown) => e);
    expect(SplintercatError.isInstance(error) && error.code).toBe('check_unknown');
    expect((error as SplintercatError).why).toBe('Defined checks: build, test');
    expect((error as SplintercatError).kind).toBe('usage');
  });

  it('a missing command fails with 127 and says how to fix it', async () => {
    const { r } = runner({ build: 'no-such-program-xyz --all' });
    const result = await r.run('build');
    expect(result.exitCode).toBe(127);
    expect(formatCheckResult(result)).toContain('The command was not found');
  });

  it('runs in another directory when asked, and names logs uniquely', async () => {
    const { r, dir } = runner({ where: 'pwd' });
    const other = tempDir();
    writeFileSync(join(other, 'marker'), '');
    const a = await r.run('where', { cwd: other });
    const b = await r.run('where');
    expect(a.tail).toEqual([other]);
    expect(b.tail).toEqual([dir]);
    expect(a.logFile).not.toBe(b.logFile);
    expect(existsSync(a.logFile) && existsSync(b.logFile)).toBe(true);
  });

  it('runs commands through sh -c, so shell code works as written', async () => {
    const commands = {
      zero: 'echo "$0"',
      tmp: 'd=$(mktemp -d) && echo ok > "$d/f" && cat "$d/f"',
      not: '! grep -q nothing-here /dev/null && echo negated',
      loop: 'for f in a b; do echo "item $f"; done',
      assign: 'FOO=1 sh -c \'echo "foo=$FOO"\'',
    };
    const { r } = runner(commands);
    expect(r.preflight()).toEqual([]);
    const tails = Object.fromEntries(
      await Promise.all(Object.keys(commands).map(async (name) => [name, (await r.run(name)).tail] as const)),
    );
    expect(tails).toEqual({
      zero: ['/bin/sh'],
      tmp: ['ok'],
      not: ['negated'],
      loop: ['item a', 'item b'],
      assign: ['foo=1'],
    });
  });

  it('preflight: shell syntax (sh -n) and the workdir, no guessing of a program', () => {
    const { r } = runner({
      tmp: 'd=$(mktemp -d) && make -C "$d"',
      not: '! grep x f',
      loop: 'for f in *; do echo "$f"; done',
      assign: 'FOO=1 make',
      missing: 'no-such-program-xyz --all',
      broken: 'if true; then echo',
      quote: 'echo "unterminated',
    });
    expect(r.preflight()).toEqual([
      {
        name: 'broken',
        message: expect.stringMatching(/^shell syntax error in "if true; then echo": .*(end of file|expecting)/i),
      },
      { name: 'quote', message: expect.stringContaining('shell syntax error') },
    ]);
    expect(r.preflight(['nope'])).toEqual([
      { name: 'nope', message: expect.stringContaining('not defined in check.commands') },
    ]);
    const gone = new CheckRunner({
      workdir: '/nonexistent/dir',
      outputDir: tempDir(),
      commands: { a: 'true' },
      timeoutSec: 5,
      killGraceSec: 1,
      sandbox: 'off',
    });
    expect(gone.preflight()).toEqual([{ name: '*', message: 'the working directory /nonexistent/dir does not exist' }]);
  });

  it('parallel runs started in the same second get distinct log files (no EEXIST)', async () => {
    const dir = tempDir();
    const fixed = { now: () => new Date('2026-01-02T03:04:05Z') };
    const r = new CheckRunner({
      workdir: dir,
      outputDir: join(dir, 'logs'),
      commands: { build: 'echo "run $$"' },
      timeoutSec: 30,
      killGraceSec: 1,
      sandbox: 'off',
      clock: fixed,
    });
    const results = await Promise.all(Array.from({ length: 8 }, () => r.run('build')));
    expect(results.every((x) => x.success)).toBe(true);
    const files = results.map((x) => x.logFile);
    expect(new Set(files).size).toBe(8);
    expect(readdirSync(join(dir, 'logs')).sort()).toEqual(
      files.map((f) => f.slice(join(dir, 'logs').length + 1)).sort(),
    );
    for (const x of results) expect(readFileSync(x.logFile, 'utf8')).toBe(`${x.tail[0]}\n`);
  });

  it('a missing working directory is a clear error', async () => {
    const { r } = runner({ build: 'true' });
    await expect(r.run('build', { cwd: '/nonexistent/dir' })).rejects.toMatchObject({ code: 'workdir_missing' });
  });
});

describe('CheckRunner output pipes', () => {
  it('a job that left the process group (setsid) and holds the output open does not keep the run waiting', async () => {
    const { r, dir } = runner({ escape: 'setsid sh -c "exec sleep 30" & echo $! > daemon.pid; echo ran' });
    const started = Date.now();
    const result = await r.run('escape');
    const daemon = Number(readFileSync(join(dir, 'daemon.pid'), 'utf8'));
    onTestFinished(() => void (alive(daemon) && process.kill(daemon, 'SIGKILL')));
    expect(result).toMatchObject({ success: true, tail: ['ran'] });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
