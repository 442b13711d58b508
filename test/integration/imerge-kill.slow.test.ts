import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testGitEnv } from '../helpers/git-repo.js';
import { createGridRepo } from '../fixtures/imerge/grid-repo.js';

const root = join(import.meta.dirname, '..', '..');
const env = { ...process.env, ...testGitEnv, GIT_EDITOR: 'true' };
const main = join(root, 'src/cli/main.ts');

function cli(dir: string, ...args: string[]): { code: number; stderr: string } {
  const r = spawnSync('node', ['--import', 'tsx', main, '-C', dir, 'imerge', ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stderr: r.stderr };
}

/** Start an autofill and kill -9 it once it has printed `afterLines` progress lines (a signal, not a sleep). */
function startAndKill(dir: string, afterLines: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('node', ['--import', 'tsx', main, '-C', dir, 'imerge', 'start', '--name', 'k', 'feature'], {
      cwd: root,
      env,
    });
    let lines = 0;
    child.stderr.on('data', (chunk: Buffer) => {
      lines += chunk.toString().split('\n').length - 1;
      if (lines >= afterLines) child.kill('SIGKILL');
    });
    child.on('exit', () => resolve());
  });
}

function finishAll(dir: string, sh: (...a: string[]) => string): string {
  for (let guard = 0; guard < 10; guard++) {
    const r = cli(dir, 'continue');
    expect(r.code).toBe(0);
    if (r.stderr.includes('Merge is complete!')) break;
    sh('checkout', '--ours', '--', 'shared.txt');
    sh('add', 'shared.txt');
    sh('commit', '-q', '--no-edit');
  }
  expect(cli(dir, 'finish').code).toBe(0);
  return sh('rev-parse', 'HEAD^{tree}');
}

describe('imerge survives kill -9 during autofill', () => {
  it('continue after a kill reads the state and gives the same final tree', async () => {
    const spec = { n1: 8, n2: 8, conflicts: [[5, 4]] as [number, number][] };
    const reference = createGridRepo(spec);
    expect(cli(reference.dir, 'start', '--name', 'k', 'feature').code).toBe(0);
    reference.sh('checkout', '--ours', '--', 'shared.txt');
    reference.sh('add', 'shared.txt');
    reference.sh('commit', '-q', '--no-edit');
    const expected = finishAll(reference.dir, reference.sh.bind(reference));

    for (const after of [3, 12]) {
      const repo = createGridRepo(spec);
      await startAndKill(repo.dir, after);
      // Killed mid-autofill: the conflict was never presented, some state was saved.
      expect(repo.sh('for-each-ref', 'refs/heads/imerge/')).toBe('');
      expect(repo.sh('for-each-ref', 'refs/imerge/k/state')).not.toBe('');
      // The state written before the kill is readable by both tools.
      expect(spawnSync('git-imerge', ['diagram', '--name', 'k'], { cwd: repo.dir, env }).status).toBe(0);
      repo.sh('checkout', '-q', 'main');
      expect(finishAll(repo.dir, repo.sh.bind(repo))).toBe(expected);
    }
  }, 120_000);
});
