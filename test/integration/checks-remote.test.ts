import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckLeft, RemoteCheckRunner } from '../../src/checks/remote/remote-runner.js';
import { checkRequestKey } from '../../src/checks/remote/protocol.js';
import { probeBwrap } from '../../src/checks/sandbox.js';
import type { Logger } from '../../src/log/logger.js';
import { nullLogger } from '../../src/log/logger.js';
import { CiRemote } from '../helpers/ci-remote.js';
import { tempDir } from '../helpers/git-repo.js';

/** A check that reads `status` in the commit under test: `pass`, or go test's report of one failing test. */
const CHECK_SH = [
  'if [ "$(cat status)" = pass ]; then echo "ok  	example.com/pkg	0.01s"; exit 0; fi',
  'echo "--- FAIL: TestMerge (0.00s)"',
  'echo "    merge_test.go:12: expected 2, got 3"',
  'echo FAIL',
  'echo "FAIL	example.com/pkg	0.01s"',
  'exit 1',
  '',
].join('\n');

function runner(remote: CiRemote, options: Partial<ConstructorParameters<typeof RemoteCheckRunner>[0]> = {}) {
  return new RemoteCheckRunner({
    git: remote.repo.git,
    remote: 'origin',
    run: 'up',
    workdir: remote.repo.dir,
    outputDir: join(tempDir(), 'logs'),
    commands: { test: 'sh check.sh' },
    timeoutSec: 60,
    pollMs: 100,
    ...options,
  });
}

/** A logger that keeps the decision lines, and resolves `next` on the next one. */
function decisions(): { logger: Logger; lines: string[]; next: () => Promise<string> } {
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  const logger: Logger = {
    ...nullLogger,
    decision: (_obj, msg) => {
      lines.push(msg ?? '');
      waiting?.(msg ?? '');
    },
    child: () => logger,
  };
  return { logger, lines, next: () => new Promise((r) => (waiting = r)) };
}

describe('checks on CI runners through a git remote (post-receive hook as the CI)', () => {
  it('a passing and a failing check: results read back with the failing tests named, requests retired', async () => {
    const remote = CiRemote.create({ 'check.sh': CHECK_SH, status: 'pass\n' });
    const good = remote.repo.head();
    const bad = remote.repo.commit('break', { status: 'fail\n' });
    const checks = runner(remote);
    const [passed, failed] = await Promise.all([
      checks.run('test', { commit: good }),
      checks.run('test', { commit: bad }),
    ]);
    await remote.jobsDone();
    checks.close();

    expect(passed).toMatchObject({ name: 'test', success: true, exitCode: 0, timedOut: false });
    expect(failed).toMatchObject({ success: false, exitCode: 1, timedOut: false });
    expect(failed.tests?.runner).toBe('go');
    expect(failed.tests?.failures.map((f) => f.id)).toEqual(['example.com/pkg::TestMerge']);
    const log = readFileSync(failed.logFile, 'utf8');
    expect(log).toContain(`commit: ${bad}`);
    expect(log).toContain('--- FAIL: TestMerge');
    expect(failed.tail.at(-1)).toContain('FAIL');
    // Results stay on the remote (and are fetched here); the requests are gone, and so are this clone's own refs of them.
    const results = remote.refs();
    expect(results).toHaveLength(2);
    expect(results.every((ref) => ref.endsWith('/result'))).toBe(true);
    const key = checkRequestKey('test', 'sh check.sh', remote.repo.sh('rev-parse', `${bad}^{tree}`), 60);
    const fetched = remote.repo.sh('for-each-ref', '--format=%(refname)', 'refs/splintercat/up/checks/');
    expect(fetched).toContain(`refs/splintercat/up/checks/${key}-`);
    expect(remote.repo.sh('for-each-ref', 'refs/splintercat-own/')).toBe('');
  });

  it("a check of uncommitted work (the resolver's run_check) sends a snapshot of the working tree", async () => {
    const remote = CiRemote.create({ 'check.sh': CHECK_SH, status: 'pass\n' });
    remote.repo.write({ status: 'fail\n' });
    const checks = runner(remote);
    const result = await checks.run('test', { cwd: remote.repo.dir });
    await remote.jobsDone();
    checks.close();
    expect(result).toMatchObject({ success: false, exitCode: 1 });
    // The working tree itself is untouched: still the uncommitted change, nothing staged.
    expect(remote.repo.sh('status', '--porcelain')).toBe(' M status');
  });

  it('several checks in flight at once: each job waits until all three have started', async () => {
    // The jobs meet in a directory outside their clones, which a sandboxed check could not write.
    const remote = CiRemote.create({ 'check.sh': CHECK_SH, status: 'pass\n' }, { sandbox: 'off' });
    const barrier = tempDir();
    const commits = [
      remote.repo.head(),
      remote.repo.commit('two', { n: '2' }),
      remote.repo.commit('three', { n: '3' }),
    ];
    // Three jobs that can only finish together: run one at a time, none would.
    const command = `touch ${barrier}/$(git rev-parse HEAD); n=0; while [ $(ls ${barrier} | wc -l) -lt 3 ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done; [ $n -lt 300 ]`;
    const checks = runner(remote, { commands: { together: command } });
    expect(checks.parallel).toBe(4);
    const results = await Promise.all(commits.map((commit) => checks.run('together', { commit })));
    await remote.jobsDone();
    checks.close();
    expect(results.map((r) => r.success)).toEqual([true, true, true]);
  });

  it('a result that never comes times out as a local check does, and the request is withdrawn', async () => {
    const remote = CiRemote.create({ 'check.sh': CHECK_SH, status: 'pass\n' }, { hook: false });
    const checks = runner(remote, { timeoutSec: 1 });
    const result = await checks.run('test', { commit: remote.repo.head() });
    checks.close();
    expect(result).toMatchObject({ success: false, timedOut: true, exitCode: null });
    expect(readFileSync(result.logFile, 'utf8')).toContain('TIMEOUT after 1 seconds; request withdrawn');
    expect(remote.refs()).toEqual([]);
  });

  it('a result for a request no longer wanted is ignored, and said so in the decision log', async () => {
    const remote = CiRemote.create({ 'check.sh': CHECK_SH, status: 'pass\n' }, { sandbox: 'off' });
    const gate = tempDir();
    const { logger, lines, next } = decisions();
    // The job says it started, then waits for the gate: the request is withdrawn in between.
    const command = `touch ${gate}/started; n=0; while [ ! -e ${gate}/open ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done`;
    const checks = runner(remote, { commands: { slow: command }, logger });
    const cancel = new AbortController();
    const pending = checks.run('slow', { commit: remote.repo.head(), signal: cancel.signal });
    await until(() => existsSync(join(gate, 'started')));
    cancel.abort();
    const result = await pending;
    expect(result).toMatchObject({ success: false, timedOut: false, signal: 'SIGTERM' });
    const ignored = next();
    writeFileSync(join(gate, 'open'), '');
    expect(await ignored).toMatch(
      /a result came for 'slow' on [0-9a-f]{12} after its request was withdrawn \(the check was cancelled\): ignored/,
    );
    expect(checks.ignoredResults()).toHaveLength(1);
    expect(lines).toHaveLength(1);
    await remote.jobsDone();
    checks.close();
  });

  it("the job's setup gets the network as check.setup_network says, and never runs a model's file", async () => {
    const remote = CiRemote.create({ 'check.sh': CHECK_SH, status: 'pass\n', 'setup.sh': 'echo setting up\n' });
    // Setup notes whether a network interface other than loopback is there (as npm install needs one).
    const setup = `if grep -v ' lo:' /proc/net/dev | grep -q ':'; then echo yes > net.txt; else echo no > net.txt; fi`;
    const command = 'test "$(cat net.txt)" = yes';
    const online = runner(remote, { commands: { online: command }, setup, setupNetwork: true });
    expect(await online.run('online', { commit: remote.repo.head() })).toMatchObject({ success: true });
    online.close();
    if (probeBwrap().ok) {
      // In the sandbox, without check.setup_network, the setup has no network.
      const offline = runner(remote, { commands: { offline: command }, setup, setupNetwork: false });
      expect(await offline.run('offline', { commit: remote.repo.head() })).toMatchObject({ success: false });
      offline.close();
    }
    // A setup that runs a file holding a model's resolution is refused on the runner too.
    const guarded = runner(remote, { commands: { test: 'sh check.sh' }, setup: 'sh setup.sh', setupNetwork: true });
    const refused = await guarded.run('test', { commit: remote.repo.head(), untrusted: ['setup.sh'] });
    guarded.close();
    await remote.jobsDone();
    expect(refused.success).toBe(false);
    expect(readFileSync(refused.logFile, 'utf8')).toContain(
      "check.setup was not run: it names setup.sh, which hold(s) a model's resolution",
    );
  });

  it('a check left unanswered (its process ends) keeps its request; a later process waits on that job', async () => {
    const remote = CiRemote.create({ 'check.sh': CHECK_SH, status: 'pass\n' }, { sandbox: 'off' });
    const gate = tempDir();
    const command = `touch ${gate}/started; n=0; while [ ! -e ${gate}/open ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done`;
    const first = runner(remote, { commands: { slow: command } });
    const end = new AbortController();
    const pending = first.run('slow', { commit: remote.repo.head(), leave: end.signal });
    await until(() => existsSync(join(gate, 'started')));
    end.abort();
    await expect(pending).rejects.toBeInstanceOf(CheckLeft);
    first.close();
    const request = remote.refs().filter((ref) => ref.endsWith('/request'));
    expect(request).toHaveLength(1);

    // The next process asks for the same check: it sends nothing new and takes the running job's result.
    const second = runner(remote, { commands: { slow: command } });
    const waiting = second.run('slow', { commit: remote.repo.head() });
    writeFileSync(join(gate, 'open'), '');
    expect(await waiting).toMatchObject({ success: true, timedOut: false });
    await remote.jobsDone();
    second.close();
    expect(remote.log().match(/\(pid \d+\)$/gm)).toHaveLength(1);
    expect(remote.refs().filter((ref) => ref.endsWith('/request'))).toEqual([]);
  });
});

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
