import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

const commands = [
  'init',
  'merge',
  'continue',
  'status',
  'abort',
  'doctor',
  'report',
  'ui',
  'check',
  'resolve',
  'driver',
  'eval',
  'imerge',
  'demo',
];
const stackTrace = /^\s+at .+:\d+:\d+\)?$/m;

describe('splintercat CLI', () => {
  it('--help lists every command of the design', async () => {
    const run = await runCli(['--help'], tempDir());
    expect(run.code).toBe(0);
    for (const name of commands) expect(run.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('--version prints the version', async () => {
    const run = await runCli(['--version'], tempDir());
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('report outside a repository fails with exit 1, says why, and writes nothing (no stack trace)', async () => {
    const dir = tempDir();
    const run = await runCli(['report', '--html', 'x.html'], dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/not a git repository/);
    expect(run.stderr).not.toMatch(stackTrace);
    expect(() => readFileSync(join(dir, 'x.html'))).toThrow();
  });

  it('an unknown command or option exits 2 with usage help, no stack trace', async () => {
    const run = await runCli(['frobnicate'], tempDir());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown command 'frobnicate'/);
    const bad = await runCli(['check'], tempDir());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/missing required argument/);
  });

  it('a bad configuration exits 2 listing every problem with file and line, and no stack trace', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), 'check:\n  timeout: later\n  comands: {}\nmerge:\n  strategy: sometimes\n');
    const run = await runCli(['--config', 'bad.yaml', 'check', 'build'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Invalid configuration in .*bad\.yaml/);
    expect(run.stderr).toMatch(/check\.timeout: .*\(.*bad\.yaml:2\)/);
    expect(run.stderr).toMatch(/check\.comands: unknown key.*\(.*bad\.yaml:3\)/);
    expect(run.stderr).toMatch(/merge\.strategy: .*\(.*bad\.yaml:5\)/);
    expect(run.stderr).not.toMatch(stackTrace);
    const verbose = await runCli(['--verbose', '--config', 'bad.yaml', 'check', 'build'], dir);
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(stackTrace);
  });

  it('--set and SPLINTERCAT_ variables override the file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'splintercat.yaml'), 'check:\n  commands:\n    build: exit 1\n');
    expect((await runCli(['check', 'build'], dir)).code).toBe(1);
    expect((await runCli(['--set', 'check.commands.build=exit 0', 'check', 'build'], dir)).code).toBe(0);
    expect((await runCli(['check', 'build'], dir, { SPLINTERCAT_CHECK__COMMANDS__BUILD: 'true' })).code).toBe(0);
  });

  it('init writes a commented default file and refuses to overwrite it without --force', async () => {
    const dir = tempDir();
    const first = await runCli(['init'], dir);
    expect(first.code).toBe(0);
    const text = readFileSync(join(dir, 'splintercat.yaml'), 'utf8');
    expect(text).toMatch(/^# splintercat\.yaml/);
    expect(text).toMatch(/OPENROUTER_API_KEY/);
    writeFileSync(join(dir, 'splintercat.yaml'), text + '# my edit\n');
    const again = await runCli(['init'], dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect(readFileSync(join(dir, 'splintercat.yaml'), 'utf8')).toMatch(/# my edit/);
    expect((await runCli(['init', '--force'], dir)).code).toBe(0);
    expect(readFileSync(join(dir, 'splintercat.yaml'), 'utf8')).toBe(text);
  });
});
