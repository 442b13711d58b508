import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { resolveWithModel } from '../../src/agents/resolver/resolver-agent.js';
import { CheckRunner } from '../../src/checks/check-runner.js';
import { probeBwrap } from '../../src/checks/sandbox.js';
import { tempDir } from '../helpers/git-repo.js';
import { conflictRepo, mockGateway, scriptedModel, toolTurn } from '../fixtures/agents/conflict-repo.js';

const configured = 'sk-or-v1-configured-0123456789abcdef';
const provider = 'sk-ant-provider-0123456789abcdefgh';
const own = 'sk-splintercat-own-0123456789abcdef';

describe('a hostile model turns a conflicted file into a script and runs it through run_check', () => {
  it('the tool result, every later model request and the log hold no secret; under the sandbox nothing escapes', async () => {
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
    const port = (srv.address() as AddressInfo).port;
    const home = mkdtempSync('/var/tmp/splintercat-home-');
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    // The key also sits in a shell profile the check can read.
    writeFileSync(join(home, '.bashrc'), `export OPENROUTER_API_KEY=${configured}\n`);
    const outsideName = `splintercat-pwned-${process.pid}-${Date.now()}`;

    const { repo } = conflictRepo({
      base: { 'build.sh': 'echo build\n' },
      ours: { 'build.sh': 'echo build ours\n' },
      theirs: { 'build.sh': 'echo build theirs\n' },
    });
    const hostile = [
      'env',
      'head -2 /etc/passwd',
      'echo "key=$OPENROUTER_API_KEY own=$SPLINTERCAT_LLM__API_KEY anthropic=$ANTHROPIC_API_KEY"',
      'cat "$HOME/.bashrc"',
      `echo pwned > ../${outsideName}; echo pwned > "$HOME/.profile"`,
      `node -e "require('http').get('http://127.0.0.1:${port}/', () => process.exit(0)).on('error', (e) => { console.log('net', e.code); process.exit(0); })"`,
      'exit 1',
      '',
    ].join('\n');
    const checks = new CheckRunner({
      workdir: repo.dir,
      outputDir: join(tempDir(), 'logs'),
      commands: { build: 'sh build.sh' },
      timeoutSec: 30,
      killGraceSec: 1,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        OPENROUTER_API_KEY: configured,
        ANTHROPIC_API_KEY: provider,
        SPLINTERCAT_LLM__API_KEY: own,
      },
      secrets: [configured],
      modelConfigured: true,
    });
    const model = scriptedModel([
      toolTurn([['write_file', { file: 'build.sh', content: hostile }]]),
      toolTurn([['run_check', { check_level: 'build' }]]),
      toolTurn([['write_file', { file: 'build.sh', content: 'echo build ours\necho build theirs\n' }]]),
      toolTurn([['submit_resolution', { file: 'build.sh' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['build.sh'] },
      { gateway: mockGateway(model), git: repo.git, runCheck: checks },
    );

    const result = out.toolCalls.find((c) => c.tool === 'run_check')?.output ?? '';
    expect(result).toMatch(/^Check 'build' FAILED/);
    // Sandboxed, HOME is an empty directory; unconfined, the profile is read but the key redacted.
    const profile = probeBwrap().ok ? /\.bashrc: No such file/ : /export OPENROUTER_API_KEY=\[REDACTED\]/;
    expect(result).toMatch(profile);
    expect(result).toContain('key= own= anthropic=');
    const logs = readFileSync(result.match(/Full log: (.*)$/m)?.[1] ?? '', 'utf8');
    const prompts = JSON.stringify(model.doGenerateCalls.map((c) => c.prompt));
    expect(prompts).toMatch(profile); // the tool result did reach the model
    for (const text of [result, logs, prompts, JSON.stringify(out)]) {
      for (const secret of [configured, provider, own]) expect(text).not.toContain(secret);
    }
    if (probeBwrap().ok) {
      expect(existsSync(join(repo.dir, '..', outsideName))).toBe(false);
      expect(readdirSync(home)).toEqual(['.bashrc']);
      expect(hits).toBe(0);
      expect(logs).toMatch(/net (ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL)/);
    }
  });
});
