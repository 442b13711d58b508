import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../fixtures/resolve/cli.js';
import { buildDemoRepo } from '../../src/workflow/demo/demo-repo.js';
import { tempDir } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

describe('splintercat demo', () => {
  it('builds the same sample repository every time, with checks passing on both tips', async () => {
    const a = await buildDemoRepo(join(tempDir(), 'a'));
    const b = await buildDemoRepo(join(tempDir(), 'b'));
    expect([a.fork, a.upstream]).toEqual([b.fork, b.upstream]);
    for (const tip of ['main', 'upstream']) {
      git(a.dir, 'checkout', '-q', tip);
      expect(execFileSync('node', ['build.mjs'], { cwd: a.dir, encoding: 'utf8' })).toContain('build ok');
      expect(execFileSync('node', ['test.mjs'], { cwd: a.dir, encoding: 'utf8' })).toContain('tests ok');
    }
    expect(() => git(a.dir, 'merge-tree', '--write-tree', 'main', 'upstream')).toThrow();
  });

  it('runs the whole merge offline (even with model settings in the environment) and prints where to look', async () => {
    const dir = join(tempDir(), 'demo');
    const run = await runCli(['demo', '--dir', dir], tempDir(), {
      SPLINTERCAT_LLM__RESOLVER_MODEL: 'would-need-network',
      OPENROUTER_API_KEY: '',
    });
    expect(run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Merged upstream into main: [0-9a-f]{40}\n {2}conflicts: 2 \(hunks by rung: rule 2\)/);
    expect(run.stdout).toMatch(/^ {2}.+ merge upstream\/main --into your-branch$/m);
    const report = /^The report: +(\S+splintercat-report\.html)/m.exec(run.stdout)?.[1] as string;
    const html = readFileSync(report, 'utf8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toMatch(
      /<h1>Merge <span class="mono">demo<\/span>: upstream into main <span class="badge s-done">done<\/span><\/h1>/,
    );
    const parents = git(dir, 'rev-list', '--parents', '-n', '1', 'main').split(' ').slice(1);
    expect(parents).toEqual([git(dir, 'rev-parse', 'main^1'), git(dir, 'rev-parse', 'upstream')]);
    expect(execFileSync('node', ['test.mjs'], { cwd: dir, encoding: 'utf8' })).toContain('tests ok');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');
  });

  it('prints follow-up commands that run as printed from any directory, when splintercat is not on PATH (npx from a clone)', async () => {
    // Not on PATH (started through npx from a clone, or node dist/cli/main.js): the printed commands name this
    // node and this script, and run from anywhere, where `npx splintercat` would look in the registry.
    const dir = join(tempDir(), 'demo');
    const viaClone = await runCli(['demo', '--dir', dir], tempDir(), { npm_command: 'exec', PATH: '/usr/bin:/bin' });
    expect(viaClone.code).toBe(0);
    expect(viaClone.stdout).not.toContain('npx ');
    const status = /^See the run: +(.+ -C \S+ --config \S+ status)$/m.exec(viaClone.stdout)?.[1] as string;
    expect(status).toBeDefined();
    const elsewhere = tempDir();
    const shown = execFileSync('sh', ['-c', status], {
      cwd: elsewhere,
      encoding: 'utf8',
      env: { ...process.env, PATH: '/usr/bin:/bin' },
    });
    expect(shown).toMatch(/^Merge 'demo': done/);
    const init = /^ {2}cd your-fork && (.+) init {8}#/m.exec(viaClone.stdout)?.[1] as string;
    git(elsewhere, 'init', '-q');
    execFileSync('sh', ['-c', `${init} init`], { cwd: elsewhere, env: { ...process.env, PATH: '/usr/bin:/bin' } });
    expect(readFileSync(join(elsewhere, 'splintercat.yaml'), 'utf8')).toContain('check:');
    expect(viaClone.stdout).toContain(`To type just \`splintercat\`: npm install --global ${repoRoot}`);
  });

  it('runs on a fresh machine: an empty HOME and no git identity anywhere', async () => {
    const home = tempDir('splintercat-home-');
    // No identity from the environment, the global or the system config, and git may not guess one from the host name.
    const env: Record<string, string> = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'user.useConfigOnly',
      GIT_CONFIG_VALUE_0: 'true',
    };
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^GIT_|^EMAIL$/.test(k)) env[k] = env[k] ?? v;
    const dir = join(tempDir(), 'demo');
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        [
          '--import',
          join(repoRoot, 'node_modules/tsx/dist/loader.mjs'),
          join(repoRoot, 'src/cli/main.ts'),
          'demo',
          '--dir',
          dir,
        ],
        { cwd: home, env },
        (error, stdout, stderr) =>
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
    expect(run.stderr).not.toMatch(/auto-detect|Please tell me who you are/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Merged upstream into main: [0-9a-f]{40}/);
    expect(git(dir, 'config', '--local', 'user.email')).toMatch(/@/);
  });
});
