import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CheckRunner } from '../../src/checks/check-runner.js';
import { formatCheckResult } from '../../src/checks/format.js';
import { SplintercatError } from '../../src/errors/index.js';
import { tempDir } from '../helpers/git-repo.js';

const fixtures = resolve(fileURLToPath(new URL('.', import.meta.url)), '../fixtures/checks');

function runner(commands: Record<string, string>, over: { timeoutSec?: number; killGraceSec?: number } = {}) {
  const dir = tempDir();
  const outputDir = join(dir, 'logs', 'nested');
  const r = new CheckRunner({ workdir: dir, outputDir, commands, timeoutSec: over.timeoutSec ?? 30, killGraceSec: over.killGraceSec ?? 1 });
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
    expect(formatCheckResult(result)).toMatch(/^Check 'build' PASSED\n\nCompleted in \d+\.\d seconds\nLog: .*build-.*\.log$/);
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

  it('times out: the whole process group, grandchildren included, is gone within timeout + grace', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids');
    const { r } = runner({ slow: `sh -c 'sleep 100 & sleep 100' & ${fixtures}/spawn-tree.sh ${pidFile}` }, { timeoutSec: 1, killGraceSec: 1 });
    const started = Date.now();
    const result = await r.run('slow');
    expect(Date.now() - started).toBeLessThan(1000 + 1000 + 1500);
    expect(result).toMatchObject({ success: false, timedOut: true });
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    expect(pids.filter(alive)).toEqual([]);
    expect(readFileSync(result.logFile, 'utf8')).toContain('TIMEOUT after 1 seconds');
    expect(formatCheckResult(result)).toMatch(/^Check 'slow' TIMEOUT/);
  });

  it('stops on an abort signal, killing the group', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids');
    const { r } = runner({ slow: `${fixtures}/spawn-tree.sh ${pidFile}` });
    const controller = new AbortController();
    const result = r.run('slow', {
      signal: controller.signal,
      onOutput: (c) => {
        if (c.includes('started')) controller.abort();
      },
    });
    const done = await result;
    expect(done.success).toBe(false);
    expect(done.signal === 'SIGTERM' || done.exitCode !== 0).toBe(true);
    expect(readFileSync(pidFile, 'utf8').trim().split('\n').map(Number).filter(alive)).toEqual([]);
  });

  it('unknown check name: a usage error listing the defined checks', async () => {
    const { r } = runner({ build: 'true', test: 'true' });
    const error = await r.run('bild').catch((e: unknown) => e);
    expect(SplintercatError.isInstance(error) && error.code).toBe('check_unknown');
    expect((error as SplintercatError).why).toBe('Defined checks: build, test');
    expect((error as SplintercatError).kind).toBe('usage');
  });

  it('a missing command fails with 127 and says how to fix it; preflight finds it first', async () => {
    const { r } = runner({ build: 'no-such-program-xyz --all', ok: 'cd . && node --version', builtin: 'exit 0' });
    expect(r.preflight()).toEqual([{ name: 'build', message: expect.stringContaining("'no-such-program-xyz'") }]);
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

  it('a missing working directory is a clear error', async () => {
    const { r } = runner({ build: 'true' });
    await expect(r.run('build', { cwd: '/nonexistent/dir' })).rejects.toMatchObject({ code: 'workdir_missing' });
  });
});
