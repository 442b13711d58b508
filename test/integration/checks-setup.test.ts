import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckRunner, type CheckRunnerOptions } from '../../src/checks/check-runner.js';
import { setupTrust } from '../../src/checks/setup-trust.js';
import { formatCheckResult } from '../../src/checks/format.js';
import { probeBwrap } from '../../src/checks/sandbox.js';
import { defaultSetupWhen, type SandboxMode } from '../../src/config/schema.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';

const sandbox: SandboxMode = probeBwrap().ok ? 'bwrap' : 'off';

function setupRunner(workdir: string, logs: string, over: Partial<CheckRunnerOptions> = {}): CheckRunner {
  return new CheckRunner({
    workdir,
    outputDir: logs,
    commands: { build: 'echo built', test: 'echo tested' },
    timeoutSec: 30,
    killGraceSec: 1,
    sandbox,
    // The count lives in the worktree, which setup may write (and which setup_when does not match).
    setup: 'echo setting up; echo x >> setup-count',
    setupWhen: [...defaultSetupWhen],
    ...over,
  });
}

const count = (dir: string): number =>
  existsSync(join(dir, 'setup-count')) ? readFileSync(join(dir, 'setup-count'), 'utf8').trim().split('\n').length : 0;

describe('check.setup', () => {
  it('runs before the first check in a worktree, again only when a setup_when file changes; the key survives a new process', async () => {
    const repo = TestRepo.create();
    repo.commit('init', { 'package.json': '{"name":"a"}\n', 'src.txt': 'x\n' });
    const wt = join(tempDir(), 'wt');
    repo.sh('worktree', 'add', '-q', '--detach', wt);
    const logs = join(tempDir(), 'logs');
    const runner = setupRunner(repo.dir, logs);

    expect((await runner.run('build', { cwd: wt })).success).toBe(true);
    expect(count(wt)).toBe(1);
    expect((await runner.run('test', { cwd: wt })).success).toBe(true);
    writeFileSync(join(wt, 'src.txt'), 'changed\n'); // not a setup_when file
    expect((await runner.run('build', { cwd: wt })).success).toBe(true);
    expect(count(wt)).toBe(1);

    // Another CLI process (a new runner) finds the key of this worktree.
    const later = setupRunner(repo.dir, logs);
    expect((await later.run('build', { cwd: wt })).success).toBe(true);
    expect(count(wt)).toBe(1);
    writeFileSync(join(wt, 'package.json'), '{"name":"a","dependencies":{"b":"1"}}\n');
    expect((await later.run('build', { cwd: wt })).success).toBe(true);
    expect(count(wt)).toBe(2);

    // The main checkout is another worktree: its own setup. The key is kept in each git dir, not the tree.
    expect((await later.run('build')).success).toBe(true);
    expect(count(repo.dir)).toBe(1);
    const wtGitDir = repo.sh('-C', wt, 'rev-parse', '--absolute-git-dir');
    expect(existsSync(join(wtGitDir, 'splintercat-setup.json'))).toBe(true);
    expect(existsSync(join(repo.dir, '.git', 'splintercat-setup.json'))).toBe(true);
    expect(repo.sh('-C', wt, 'status', '--porcelain', '--untracked-files=all')).toBe(
      ' M package.json\n M src.txt\n?? setup-count',
    );
    expect(readdirSync(logs).filter((f) => f.startsWith('setup-'))).toHaveLength(3);
  });

  it('a directory that is not a worktree root keeps its key under the log directory; parallel checks set up once', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'requirements-dev.txt'), 'pytest\n');
    const logs = join(tempDir(), 'logs');
    const runner = setupRunner(dir, logs);
    const results = await Promise.all([runner.run('build'), runner.run('test'), runner.run('build')]);
    expect(results.map((r) => r.success)).toEqual([true, true, true]);
    expect(count(dir)).toBe(1);
    expect(readdirSync(join(logs, '.setup'))).toHaveLength(1);
    writeFileSync(join(dir, 'requirements-dev.txt'), 'pytest\nhypothesis\n');
    await runner.run('build');
    expect(count(dir)).toBe(2);
  });

  it('a failing setup is a failed result named setup with its own log; the check does not run, and setup is retried next time', async () => {
    const dir = tempDir();
    const logs = join(tempDir(), 'logs');
    const runner = setupRunner(dir, logs, {
      setup: 'echo "npm ERR! missing"; [ -e fixed ]',
      commands: { build: 'echo built > built' },
    });
    const failed = await runner.run('build');
    expect(failed).toMatchObject({
      name: 'setup',
      setupFor: 'build',
      success: false,
      exitCode: 1,
      tail: ['npm ERR! missing'],
    });
    expect(failed.logFile).toMatch(/\/setup-\d{8}-\d{6}\.log$/);
    expect(readFileSync(failed.logFile, 'utf8')).toContain('npm ERR! missing');
    expect(existsSync(join(dir, 'built'))).toBe(false);
    expect(formatCheckResult(failed)).toMatch(
      /^Check 'setup' FAILED\n[\s\S]*The worktree setup \(check\.setup\) failed, so check 'build' did not run/,
    );

    writeFileSync(join(dir, 'fixed'), '');
    const passed = await runner.run('build');
    expect(passed).toMatchObject({ name: 'build', success: true });
    expect(existsSync(join(dir, 'built'))).toBe(true);
  });

  it('a setup with a syntax error is found by preflight', () => {
    const runner = setupRunner(tempDir(), join(tempDir(), 'logs'), { setup: 'npm ci &&' });
    expect(runner.preflight()).toEqual([
      { name: 'setup', message: expect.stringContaining('shell syntax error in "npm ci &&"') },
    ]);
  });
});

describe('check.setup and files a model wrote', () => {
  it('names the files a setup would run (named in its command) and those it reads (setup_when)', () => {
    expect(setupTrust('sh setup.sh', [], ['setup.sh'])).toEqual({ runs: ['setup.sh'], reads: [] });
    expect(
      setupTrust('bash ./scripts/setup.sh && npm ci', ['package.json'], ['scripts/setup.sh', 'package.json']),
    ).toEqual({
      runs: ['scripts/setup.sh'],
      reads: ['package.json'],
    });
    expect(setupTrust('sh data.sh', ['package.json'], ['a.sh', 'src/x.js'])).toEqual({ runs: [], reads: [] });
  });

  it('never runs a file the model wrote; with one it reads, it runs without the network', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'setup.sh'), 'echo ran > ran.txt\n');
    writeFileSync(join(dir, 'package.json'), '{}\n');
    const logs = join(tempDir(), 'logs');
    const named = setupRunner(dir, logs, { setup: 'sh setup.sh', setupNetwork: true });
    const refused = await named.run('build', { untrusted: ['setup.sh'] });
    expect(refused).toMatchObject({ success: false, name: 'setup', setupFor: 'build', exitCode: null });
    expect(refused.tail[0]).toMatch(/check.setup was not run: it names setup.sh, which hold\(s\) a model's resolution/);
    expect(readFileSync(refused.logFile, 'utf8')).toMatch(/never runs a file a model wrote/);
    expect(existsSync(join(dir, 'ran.txt'))).toBe(false);
    // The same setup, the file not the model's: it runs.
    expect((await named.run('build')).success).toBe(true);
    expect(existsSync(join(dir, 'ran.txt'))).toBe(true);
  });
});
