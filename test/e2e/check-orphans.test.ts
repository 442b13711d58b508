import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../fixtures/resolve/cli.js';
import { chainRepo } from '../fixtures/workflow/chain-repo.js';
import { tempDir, testGitEnv } from '../helpers/git-repo.js';

const tsxLoader = resolve(repoRoot, 'node_modules/tsx/dist/loader.mjs');
const mainTs = resolve(repoRoot, 'src/cli/main.ts');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(what: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return what();
}

describe('a check left running by a splintercat killed with -9', () => {
  it('is ended by the next continue before it checks again; continue finishes and nothing of the old check is alive', async () => {
    const repo = chainRepo(
      1,
      () => 'same',
      () => 'same  ',
    );
    const marks = tempDir('splintercat-orphan-');
    // The first run of the check records its pid and hangs; later runs pass at once.
    writeFileSync(
      join(repo.dir, 'check.mjs'),
      [
        "import { existsSync, writeFileSync } from 'node:fs';",
        `const mark = ${JSON.stringify(join(marks, 'first'))};`,
        'if (!existsSync(mark)) {',
        '  writeFileSync(mark, String(process.pid));',
        '  setInterval(() => {}, 1000);',
        '} else console.log("ok");',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      [
        'target:',
        '  branch: main',
        'check:',
        '  sandbox: "off"',
        '  commands:',
        '    build: node check.mjs',
        '  workflow: [build]',
        'merge:',
        '  strategy: per_conflict',
        'imerge:',
        '  name: up',
        '',
      ].join('\n'),
    );
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    // The check is the fork's own file: it is in every worktree a check runs in.
    repo.sh('add', 'check.mjs');
    repo.sh('commit', '-q', '-m', 'the check');

    const child = spawn(process.execPath, ['--import', tsxLoader, mainTs, 'merge', 'upstream'], {
      cwd: repo.dir,
      env: { ...process.env, ...testGitEnv },
      detached: true,
      stdio: 'ignore',
    });
    // The mark exists before its pid is written in it: wait for the pid.
    const markedPid = () => (existsSync(join(marks, 'first')) ? readFileSync(join(marks, 'first'), 'utf8') : '');
    expect(await until(() => /^\d+$/.test(markedPid()), 120_000)).toBe(true);
    const checkPid = Number(markedPid());
    // kill -9 of splintercat's whole process group: the check has a group of its own and lives on.
    process.kill(-(child.pid as number), 'SIGKILL');
    await until(() => !alive(child.pid as number), 5000);
    expect(alive(checkPid)).toBe(true);
    expect(JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'checks.json'), 'utf8'))).toEqual([
      expect.objectContaining({ name: 'build' }),
    ]);

    const resumed = await runCli(['continue'], repo.dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/ended check 'build' \(process group \d+/);
    expect(alive(checkPid)).toBe(false);
    expect(JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'checks.json'), 'utf8'))).toEqual([]);
    expect(repo.sh('rev-list', '--parents', '-n', '1', 'main').split(' ')).toHaveLength(3);
  }, 240_000);
});
