import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CheckRunner, type CheckRunnerOptions } from '../../src/checks/check-runner.js';
import { formatCheckResult } from '../../src/checks/format.js';
import { probeBwrap, runBwrapProbe } from '../../src/checks/sandbox.js';
import { ConfigError, SplintercatError } from '../../src/errors/index.js';
import type { Logger } from '../../src/log/logger.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';

const bwrap = probeBwrap().ok;

function runner(
  workdir: string,
  commands: Record<string, string>,
  over: Partial<CheckRunnerOptions> = {},
): CheckRunner {
  return new CheckRunner({
    workdir,
    outputDir: join(tempDir(), 'logs'),
    commands,
    timeoutSec: 30,
    killGraceSec: 1,
    sandbox: 'bwrap',
    ...over,
  });
}

/** A local HTTP server counting the requests it gets. */
async function server(): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const srv = createServer((_, res) => {
    hits++;
    res.end('ok');
  });
  await new Promise<void>((done) => srv.listen(0, '127.0.0.1', done));
  onTestFinished(() => {
    srv.closeAllConnections();
    return new Promise<void>((done) => srv.close(() => done()));
  });
  return { port: (srv.address() as AddressInfo).port, hits: () => hits };
}

const fetchScript = (port: number): string =>
  `node -e "require('http').get('http://127.0.0.1:${port}/', (r) => { console.log('reached', r.statusCode); process.exit(0); }).on('error', (e) => { console.log('blocked', e.code); process.exit(3); })"`;

describe.runIf(bwrap)('the sandbox (bubblewrap)', () => {
  it('a check sees only its worktree, the system and the toolchain: not the main checkout, not $HOME, not the host /tmp, and writes none of them', async () => {
    const repo = TestRepo.create();
    repo.commit('init', { 'a.txt': 'a\n' });
    const wt = join(tempDir(), 'wt');
    repo.sh('worktree', 'add', '-q', '--detach', wt);
    const home = mkdtempSync('/var/tmp/splintercat-home-');
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    writeFileSync(join(home, '.bashrc'), 'export SECRET_THING=1\n');
    const hostTmp = `/tmp/splintercat-escape-${process.pid}-${Date.now()}`;
    const r = runner(
      repo.dir,
      {
        escape: [
          `cat ${repo.dir}/a.txt "$HOME/.bashrc"`,
          `echo evil > ${repo.dir}/a.txt; echo evil > ${repo.dir}/new.txt; echo evil > /usr/evil; echo x > ${hostTmp}`,
          'echo evil > "$HOME/.bashrc"; ls -A "$HOME"; echo done',
        ].join('; '),
        inside: 'echo ok > built.txt && echo t > /tmp/private && cat /tmp/private',
      },
      { env: { PATH: process.env.PATH, HOME: home } },
    );
    const result = await r.run('escape', { cwd: wt });
    const log = readFileSync(result.logFile, 'utf8');
    // The main checkout and HOME's files are not there; HOME is an empty directory of the sandbox's own.
    expect(log.match(/No such file or directory/g)).toHaveLength(2);
    expect(log).not.toContain('SECRET_THING');
    expect(log.match(/Directory nonexistent/g)).toHaveLength(2);
    expect(log).toMatch(/\/usr\/evil: Read-only file system/);
    expect(log).toMatch(/^\.bashrc\ndone$/m);
    expect(formatCheckResult({ ...result, success: false, exitCode: 1 })).toContain(
      'Add the directory it writes (a cache such as ~/.cache) to check.writable',
    );
    expect(result.sandboxed).toBe(true);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(join(repo.dir, 'new.txt'))).toBe(false);
    expect(readdirSync(home)).toEqual(['.bashrc']);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('export SECRET_THING=1\n');
    expect(existsSync(hostTmp)).toBe(false);

    const ok = await r.run('inside', { cwd: wt });
    expect(ok).toMatchObject({ success: true, tail: ['t'] });
    expect(readFileSync(join(wt, 'built.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync('/tmp/private') && readFileSync('/tmp/private', 'utf8') === 't\n').toBe(false);
  });

  it("check.readable paths are shown read-only; the worktree's .git is read-only", async () => {
    const repo = TestRepo.create();
    repo.commit('init', { 'a.txt': 'a\n' });
    const wt = join(tempDir(), 'wt');
    repo.sh('worktree', 'add', '-q', '--detach', wt);
    const shared = tempDir();
    writeFileSync(join(shared, 'tool.txt'), 'tool\n');
    const r = runner(
      repo.dir,
      { look: `cat ${shared}/tool.txt; echo x > ${shared}/tool.txt; echo 'gitdir: /tmp' > .git; rm -f .git; cat .git` },
      { readable: [shared] },
    );
    const result = await r.run('look', { cwd: wt });
    const log = readFileSync(result.logFile, 'utf8');
    expect(log).toMatch(/^tool$/m);
    expect(log.match(/Read-only file system|Device or resource busy/g)?.length).toBeGreaterThanOrEqual(3);
    expect(readFileSync(join(shared, 'tool.txt'), 'utf8')).toBe('tool\n');
    expect(readFileSync(join(wt, '.git'), 'utf8')).toMatch(/^gitdir: .*\.git\/worktrees\/wt\n$/);
  });

  it('check.writable directories (a dependency cache) are writable, and only those', async () => {
    const dir = tempDir();
    const cache = join(tempDir(), 'cache', 'npm'); // created when missing
    const other = tempDir();
    const r = runner(dir, { cache: `echo c > ${cache}/entry && echo o > ${other}/entry` }, { writable: [cache] });
    const result = await r.run('cache');
    expect(result.success).toBe(false);
    expect(readFileSync(join(cache, 'entry'), 'utf8')).toBe('c\n');
    expect(existsSync(join(other, 'entry'))).toBe(false);
  });

  it('a check cannot reach the network, not even 127.0.0.1; setup can only with check.setup_network', async () => {
    const { port, hits } = await server();
    const dir = tempDir();
    const r = runner(
      dir,
      { net: fetchScript(port) },
      { setup: `${fetchScript(port)} > setup-net.txt`, setupNetwork: true },
    );
    const result = await r.run('net');
    expect(readFileSync(join(dir, 'setup-net.txt'), 'utf8')).toBe('reached 200\n');
    expect(hits()).toBe(1);
    expect(result).toMatchObject({ success: false, exitCode: 3 });
    expect(result.tail[0]).toMatch(/^blocked (ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL)$/);

    const offline = tempDir();
    const setup = await runner(offline, { net: 'true' }, { setup: `${fetchScript(port)}` }).run('net');
    expect(setup).toMatchObject({ success: false, name: 'setup', setupFor: 'net' });
    expect(setup.tail[0]).toMatch(/^blocked /);
    expect(hits()).toBe(1);

    const unconfined = await runner(dir, { net: fetchScript(port) }, { sandbox: 'off' }).run('net');
    expect(unconfined).toMatchObject({ success: true, tail: ['reached 200'], sandboxed: false });
    expect(hits()).toBe(2);
  });
});

describe('choosing the sandbox', () => {
  it('check.sandbox: bwrap without a working bubblewrap is a clear config error', async () => {
    expect(runBwrapProbe({ PATH: '/nonexistent' })).toEqual({
      ok: false,
      reason: 'bwrap is not installed (not on PATH)',
    });
    const r = runner(
      tempDir(),
      { build: 'true' },
      { probeSandbox: () => ({ ok: false, reason: 'bwrap is not installed (not on PATH)' }) },
    );
    const error = await r.run('build').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(SplintercatError.isInstance(error) && error.kind).toBe('usage');
    expect((error as ConfigError).what).toBe('check.sandbox is bwrap, but bubblewrap cannot run here');
    expect((error as ConfigError).fix.join('\n')).toContain('apt-get install bubblewrap');
    expect(() => r.preflight()).toThrow(ConfigError);
  });

  it('unconfined checks while a model is configured: one warning per runner; auto falls back to unconfined with the reason', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (_o, m) => void warnings.push(m ?? ''),
      error: () => {},
      decision: () => {},
      child: () => logger,
    };
    const off = runner(tempDir(), { build: 'true' }, { sandbox: 'off', modelConfigured: true, logger });
    await off.run('build');
    await off.run('build');
    expect(warnings).toEqual([expect.stringMatching(/^checks run unconfined \(check.sandbox: off\)/)]);

    const auto = runner(
      tempDir(),
      { build: 'true' },
      {
        sandbox: 'auto',
        modelConfigured: true,
        logger,
        probeSandbox: () => ({ ok: false, reason: 'bwrap fails here: no user namespaces' }),
      },
    );
    expect((await auto.run('build')).sandboxed).toBe(false);
    expect(warnings[1]).toMatch(/check.sandbox: auto; bwrap fails here: no user namespaces/);

    const quiet = runner(tempDir(), { build: 'true' }, { sandbox: 'off', modelConfigured: false, logger });
    await quiet.run('build');
    expect(warnings).toHaveLength(2);
  });
});
