import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';

const repoRoot = resolve(import.meta.dirname, '../..');

function run(root: string, busyAt?: number): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((done, fail) => {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'test/fixtures/store/machine-child.ts'), root, join(root, 'calls.log'), '10'],
      {
        cwd: repoRoot,
        env: { ...process.env, BUSY_AT: busyAt === undefined ? '' : String(busyAt) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines: string[] = [];
    createInterface({ input: proc.stdout }).on('line', (line) => {
      lines.push(line);
      if (line === `busy ${busyAt}`) proc.kill('SIGINT');
    });
    proc.on('error', fail);
    proc.on('close', (code) => done({ code, lines }));
  });
}

describe('runner and SIGINT', () => {
  it('stops cleanly at the next safe point, says how to resume, and resumes there', async () => {
    const root = tempDir();
    const stopped = await run(root, 3);
    expect(stopped.code).toBe(0);
    const last = stopped.lines.at(-1) ?? '';
    expect(last).toMatch(/^outcome stopped at resolve_conflicts: splintercat continue --name demo$/);
    const state = JSON.parse(readFileSync(join(root, 'demo', 'state.json'), 'utf8')) as {
      status: string;
      phase: string;
      data: { checks?: { validated?: string[] } };
    };
    expect(state).toMatchObject({ status: 'stopped', phase: 'resolve_conflicts' });
    expect(existsSync(join(root, 'demo', 'lock'))).toBe(false);
    // The busy node (iteration 3) finished; the runner stopped before iteration 4.
    expect(readFileSync(join(root, 'calls.log'), 'utf8').trim().split('\n')).toEqual([
      'call-0',
      'call-1',
      'call-2',
      'call-3',
    ]);
    expect(state.data.checks?.validated).toHaveLength(4);

    const resumed = await run(root);
    expect(resumed.lines.at(-1)).toBe('outcome done');
    // Every call made exactly once across the stop: a clean stop never repeats work.
    expect(readFileSync(join(root, 'calls.log'), 'utf8').trim().split('\n')).toEqual(
      Array.from({ length: 10 }, (_, i) => `call-${i}`),
    );
  });
});
