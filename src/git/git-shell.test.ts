import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TestRepo, tempDir, testGitEnv } from '../../test/helpers/git-repo.js';
import { gitSpy } from '../../test/helpers/git-spy.js';
import { GitShell } from './git-shell.js';
import { Git } from './git.js';

describe('GitShell', () => {
  it('runs git commands in order, each with its own output (NULs kept), stderr and exit code as data', async () => {
    const repo = TestRepo.create();
    repo.commit('one', { 'a b.txt': "it's\n" });
    const shell = new GitShell(repo.dir, { ...process.env, ...testGitEnv });
    onTestFinished(() => shell.close());
    const [ls, missing, quoted] = await Promise.all([
      shell.run(['ls-files', '-z']),
      shell.run(['rev-parse', '--verify', '-q', 'no-such-ref']),
      shell.run(['log', '-1', '--format=%s', '--', "it's", 'a b.txt']),
    ]);
    expect(ls).toEqual({ exitCode: 0, stdout: 'a b.txt\0', stderr: '' });
    expect(missing.exitCode).toBe(1);
    expect(quoted).toEqual({ exitCode: 0, stdout: 'one\n', stderr: '' });
    const bad = await shell.run(['show', 'does-not-exist']);
    expect(bad.exitCode).toBe(128);
    expect(bad.stderr).toMatch(/unknown revision|bad revision|ambiguous argument/);
    expect(bad.stdout).toBe('');
    // The shell is still there for the next command, and its stdin is not the command's.
    expect(await shell.run(['hash-object', '--stdin'])).toMatchObject({
      exitCode: 0,
      stdout: `${'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'}\n`,
    });
  });

  it('refuses an argument with a newline; close rejects what is queued', async () => {
    const repo = TestRepo.create();
    repo.commit('one');
    const shell = new GitShell(repo.dir, { ...process.env, ...testGitEnv });
    await expect(shell.run(['log', '--format=a\nb'])).rejects.toThrow(/one line per command/);
    await expect(shell.run(['log', '--format=a\0b'])).rejects.toThrow(/without NUL bytes/);
    const queued = shell.run(['log', '-1']);
    shell.close();
    await expect(queued).rejects.toThrow(/closed/);
  });

  it('runPooled starts git through the shells (the gitBinary of the Git) and an idle shell does not keep the process alive', async () => {
    const repo = TestRepo.create();
    repo.commit('one');
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    onTestFinished(() => git.close());
    const results = await Promise.all([1, 2, 3, 4].map(() => git.runPooled(['rev-parse', 'HEAD'])));
    expect(new Set(results.map((r) => r.stdout))).toEqual(new Set([`${repo.sh('rev-parse', 'HEAD')}\n`]));
    expect(spy.calls()).toEqual(Array(4).fill('rev-parse HEAD'));

    // A script that runs one command and never closes its Git exits on its own.
    const dir = tempDir();
    const script = join(dir, 'idle.mjs');
    writeFileSync(
      script,
      `import { Git } from ${JSON.stringify(new URL('./git.ts', import.meta.url).pathname)};\n` +
        `const r = await new Git({ cwd: ${JSON.stringify(repo.dir)} }).runPooled(['rev-parse', 'HEAD']);\nconsole.log(r.exitCode);\n`,
    );
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], {
      cwd: join(new URL('../..', import.meta.url).pathname),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(out.trim()).toBe('0');
  });
});
