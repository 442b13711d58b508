import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testGitEnv } from '../helpers/git-repo.js';
import { cliShellCommand, runCli } from '../fixtures/resolve/cli.js';
import { chainRepo } from '../fixtures/workflow/chain-repo.js';

/** Deterministic pseudo-random delays (seeded), so a failing run can be replayed with KILL_SEED. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Start the CLI and SIGKILL it after `ms` (or let it finish); resolves with its exit code or 'killed'. */
function runAndKill(args: string[], cwd: string, ms: number): Promise<number | 'killed'> {
  return new Promise((done) => {
    const child = spawn('/bin/sh', ['-c', `exec ${cliShellCommand} ${args.join(' ')}`], { cwd, env: { ...process.env, ...testGitEnv }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done(signal === 'SIGKILL' ? 'killed' : (code ?? 1));
    });
  });
}

function makeRepo() {
  const repo = chainRepo(4, () => '1  ', () => '1');
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    ['target:', '  branch: main', 'check:', '  commands:', '    build: node check.mjs', '  workflow: [build]', 'imerge:', '  name: up', 'merge:', '  strategy: per_conflict', ''].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n.splintercat/\n');
  return repo;
}

describe('kill -9 at random moments, then continue', () => {
  it('ends in the same merge tree as an uninterrupted run, across at least 20 kills', async () => {
    const reference = makeRepo();
    expect((await runCli(['merge', 'upstream'], reference.dir)).code).toBe(0);
    const expectedTree = reference.sh('rev-parse', 'main^{tree}');

    const random = rng(Number(process.env.KILL_SEED ?? 20261122));
    let kills = 0;
    let runs = 0;
    while (kills < 20 && runs < 12) {
      runs++;
      const repo = makeRepo();
      let result = await runAndKill(['merge', 'upstream'], repo.dir, 300 + Math.floor(random() * 3500));
      let rounds = 0;
      while (result !== 0 && rounds < 12) {
        if (result === 'killed') kills++;
        else expect.fail(`splintercat exited with ${result} after a kill (round ${rounds})`);
        rounds++;
        // After a kill before the run existed, `continue` has nothing to resume: start again.
        const started = repo.sh('for-each-ref', 'refs/imerge') !== '' || (await runCli(['status', '--json'], repo.dir)).code === 0;
        const args = started ? ['continue'] : ['merge', 'upstream'];
        result = await runAndKill(args, repo.dir, rounds > 4 ? 60_000 : 300 + Math.floor(random() * 3500));
      }
      expect(result).toBe(0);
      expect(repo.sh('rev-parse', 'main^{tree}')).toBe(expectedTree);
      expect(repo.sh('rev-list', '--parents', '-n', '1', 'main').split(' ')).toHaveLength(3);
      expect(repo.sh('status', '--porcelain', '--untracked-files=no')).toBe('');
    }
    expect(kills).toBeGreaterThanOrEqual(20);
  });
});
