import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { RunStore } from '../../src/store/run-store.js';

const repoRoot = resolve(import.meta.dirname, '../..');

describe('run lock between processes', () => {
  it('exactly one of several racing processes gets the lock; the others see its pid', async () => {
    const root = tempDir();
    const procs = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/fixtures/store/lock-child.ts'), root, 'm'], {
        cwd: repoRoot,
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const answers = await Promise.all(
      procs.map((p) => new Promise<string>((done) => createInterface({ input: p.stdout }).once('line', done))),
    );
    const winners = procs.filter((_, i) => answers[i] === 'got');
    expect(winners).toHaveLength(1);
    const winnerPid = winners[0]?.pid;
    for (const a of answers.filter((x) => x !== 'got')) expect(a).toBe(`held ${winnerPid}`);
    expect(new RunStore(root).lockStatus('m')).toMatchObject({ state: 'held', info: { pid: winnerPid } });
    await Promise.all(
      procs.map((p) => {
        const closed = new Promise((done) => p.on('close', done));
        p.stdin.end();
        return closed;
      }),
    );
    expect(new RunStore(root).lockStatus('m').state).toBe('free');
  });
});
