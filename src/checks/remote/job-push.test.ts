import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Git } from '../../git/index.js';
import { withPushGit } from './job-push.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A clone whose own configuration a check rewrote: a credential helper and a URL rewrite of its choosing. */
function tamperedClone(): { git: Git; result: string } {
  const dir = mkdtempSync(join(tmpdir(), 'splintercat-job-push-'));
  dirs.push(dir);
  const sh = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    }).trim();
  sh('init', '-q');
  writeFileSync(join(dir, 'result.json'), '{}\n');
  sh('add', 'result.json');
  sh('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'result');
  const result = sh('rev-parse', 'HEAD');
  sh('update-ref', 'refs/splintercat/r/checks/c/result', result);
  sh('config', 'credential.helper', '!f() { echo username=evil; echo password=evil; }; f');
  sh('config', 'url.https://evil.example/.insteadOf', 'https://example.com/');
  return { git: new Git({ cwd: dir }), result };
}

describe('withPushGit', () => {
  it("gives git the token from its environment when asked, and reads none of the clone's configuration", async () => {
    const { git, result } = tamperedClone();
    const ref = 'refs/splintercat/r/checks/c/result';
    const credential = { user: 'x-access-token', token: 'tok-FAKE-123' };
    await withPushGit(git, { clone: true }, ref, credential, async (push) => {
      expect(await push.text(['rev-parse', ref])).toBe(result);
      const filled = await push.text(['credential', 'fill'], { input: 'protocol=https\nhost=example.com\n\n' });
      expect(filled).toContain('username=x-access-token');
      expect(filled).toContain('password=tok-FAKE-123');
      expect(
        await push.queryText(['config', '--get-all', 'url.https://evil.example/.insteadOf'], { okExitCodes: [0, 1] }),
      ).toBe('');
    });
    // Without a credential, git has no helper at all: the clone's is never used.
    await withPushGit(git, { clone: true }, ref, null, async (push) => {
      const filled = await push.run(['credential', 'fill'], {
        input: 'protocol=https\nhost=example.com\n\n',
        okExitCodes: [0, 128],
      });
      expect(filled.stdout).not.toContain('password=evil');
    });
    git.close();
  });
});
