import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/checks/sandbox.js';
import { tempDir } from '../helpers/git-repo.js';
import { processesWithEnv } from '../helpers/processes.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

const tagged = (tag: string): number[] => processesWithEnv('CHECK_TAG', tag);

async function until(condition: () => boolean, maxMs: number): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return condition();
}

describe.runIf(probeBwrap().ok)('a sandboxed check dies with splintercat', () => {
  it('kill -9 of the process running the check leaves none of the check behind', async () => {
    const tag = `orphan-${process.pid}-${Date.now()}`;
    const child = spawn(
      process.execPath,
      [
        '--import',
        resolve(root, 'node_modules/tsx/dist/loader.mjs'),
        resolve(root, 'test/fixtures/checks/run-check-child.ts'),
        tempDir(),
        `export CHECK_TAG=${tag}; sleep 100 & sleep 100 & setsid sleep 100 & echo started; wait`,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    expect(await until(() => out.includes('started') && tagged(tag).length >= 3, 20_000)).toBe(true);
    const exited = new Promise((done) => child.on('exit', done));
    child.kill('SIGKILL');
    await exited;
    expect(await until(() => tagged(tag).length === 0, 5000)).toBe(true);
  });
});
