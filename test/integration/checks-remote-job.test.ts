import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRequestCommit, createResultCommit } from '../../src/checks/remote/commits.js';
import {
  PROTOCOL_VERSION,
  checkRefs,
  checkRequestId,
  checkRequestKey,
  newNonce,
  parseResultRecord,
  type CheckRequest,
  type CheckResultRecord,
} from '../../src/checks/remote/protocol.js';
import { pushRecordedCheck, recordCheck } from '../../src/checks/remote/report-check.js';
import { signedWith } from '../../src/checks/remote/result-key.js';
import { ciSetup } from '../../src/checks/remote/ci-jobs.js';
import { Git } from '../../src/git/index.js';
import { cliShellCommand } from '../fixtures/resolve/cli.js';
import { CiRemote } from '../helpers/ci-remote.js';
import { tempDir, testGitEnv } from '../helpers/git-repo.js';

const KEY = 'rk-FAKE-push-only-0123456789';

/** A request for `command` on main, pushed to the bare remote as a clone sends it; and a job's clone of it. */
async function requested(command = 'sh check.sh'): Promise<{ remote: CiRemote; request: CheckRequest; job: Git }> {
  const remote = CiRemote.create({ 'check.sh': 'echo fine\n' }, { hook: false });
  const { git, dir } = remote.repo;
  const commit = await git.text(['rev-parse', 'HEAD']);
  const nonce = newNonce();
  const id = checkRequestId(checkRequestKey('quick', command, await git.text(['rev-parse', 'HEAD^{tree}']), 60), nonce);
  const request: CheckRequest = {
    splintercat: 'check-request',
    version: PROTOCOL_VERSION,
    id,
    nonce,
    run: 'up',
    check: 'quick',
    command,
    setup: '',
    setupNetwork: false,
    setupWhen: [],
    untrusted: [],
    timeoutSec: 60,
    killGraceSec: 10,
    commit,
    requestedAt: new Date().toISOString(),
    by: 'here',
  };
  const requestCommit = await createRequestCommit(git, request, {}, dir);
  remote.repo.sh('push', '-q', 'origin', `${requestCommit}:${checkRefs('up', id).request}`);
  const clone = join(tempDir('splintercat-job-'), 'clone');
  const env = { ...process.env, ...testGitEnv };
  execFileSync('git', ['clone', '-q', '--no-checkout', remote.bare, clone], { env });
  execFileSync('git', ['fetch', '-q', 'origin', `+${checkRefs('up', id).request}:refs/splintercat-job/request`], {
    cwd: clone,
    env,
  });
  execFileSync('git', ['checkout', '-q', '--detach', 'refs/splintercat-job/request'], { cwd: clone, env });
  return { remote, request, job: new Git({ cwd: clone, env: testGitEnv }) };
}

function remoteRecord(remote: CiRemote, ref: string): CheckResultRecord {
  const text = execFileSync('git', ['show', `${ref}:result.json`], { cwd: remote.bare, encoding: 'utf8' });
  const read = parseResultRecord(text);
  if (!read.ok) throw new Error(read.reason);
  return read.record;
}

/** A directory holding the hook and job files `init --ci hook` writes, signing with no key. */
function hookFiles(): string {
  const hooks = tempDir('splintercat-hooks-');
  const setup = ciSetup('hook', { command: cliShellCommand, remote: 'origin', hookDir: hooks, resultKey: null });
  for (const file of setup.files) {
    writeFileSync(file.path, file.content);
    chmodSync(file.path, file.mode ?? 0o755);
  }
  return hooks;
}

describe('check-report --push-only with SPLINTERCAT_RESULT_KEY', () => {
  it('signs the result the check recorded, against the request the remote holds; the key is in no ref', async () => {
    const { remote, request, job } = await requested();
    const bundle = join(tempDir(), 'result.bundle');
    const env = { ...process.env, SPLINTERCAT_RESULT_KEY: KEY };
    // The check's half: whatever its environment holds, it writes no signature.
    const recorded = await recordCheck({
      git: job,
      ref: checkRefs('up', request.id).request,
      logDir: tempDir(),
      sandbox: 'off',
      bundle,
      env,
    });
    expect(recorded.status).toBe('recorded');
    if (recorded.status === 'recorded') expect(recorded.record.signature).toBeUndefined();
    const pushed = await pushRecordedCheck({
      git: job,
      ref: checkRefs('up', request.id).request,
      source: { bundle },
      env,
    });
    expect(pushed.status).toBe('reported');
    const record = remoteRecord(remote, checkRefs('up', request.id).result);
    expect(record.success).toBe(true);
    expect(signedWith(record, KEY)).toBe(true);
    const all = execFileSync('git', ['log', '--all', '-p', '--format=%B'], { cwd: remote.bare, encoding: 'utf8' });
    expect(all).not.toContain(KEY);
    job.close();
  });

  it('refuses to sign a result of a request rewritten on the remote since (same id and nonce, another command)', async () => {
    const { remote, request, job } = await requested();
    const refs = checkRefs('up', request.id);
    const bundle = join(tempDir(), 'result.bundle');
    await recordCheck({ git: job, ref: refs.request, logDir: tempDir(), sandbox: 'off', bundle, env: {} });
    // Mallory rewrites the request the remote holds: its nonce copied, the command another.
    const rewritten = await createRequestCommit(remote.repo.git, { ...request, command: 'true' }, {}, remote.repo.dir);
    remote.repo.sh('push', '-q', '-f', 'origin', `${rewritten}:${refs.request}`);
    await expect(
      pushRecordedCheck({ git: job, ref: refs.request, source: { bundle }, env: { SPLINTERCAT_RESULT_KEY: KEY } }),
    ).rejects.toMatchObject({
      why: expect.stringMatching(new RegExp(`it ran the request commit [0-9a-f]{40}, not ${rewritten}`)),
    });
    expect(remote.refs().filter((r) => r.endsWith('/result'))).toEqual([]);
    job.close();
  });

  it('refuses to sign a recorded result that does not answer the request on the remote (another nonce)', async () => {
    const { remote, request, job } = await requested();
    const refs = checkRefs('up', request.id);
    const forged: CheckResultRecord = {
      splintercat: 'check-result',
      version: PROTOCOL_VERSION,
      id: request.id,
      nonce: newNonce(),
      run: 'up',
      check: 'quick',
      commit: request.commit,
      success: true,
      exitCode: 0,
      signal: null,
      timedOut: false,
      durationMs: 1,
      tests: null,
      url: null,
      runner: 'mallory',
      finishedAt: new Date().toISOString(),
    };
    await job.run(['update-ref', refs.result, await createResultCommit(job, forged, 'ok\n')]);
    await expect(
      pushRecordedCheck({ git: job, ref: refs.request, env: { SPLINTERCAT_RESULT_KEY: KEY } }),
    ).rejects.toMatchObject({
      code: 'check_request_invalid',
      why: expect.stringMatching(/does not answer the request: its nonce is not this clone's request's/),
    });
    expect(remote.refs().filter((r) => r.endsWith('/result'))).toEqual([]);
    job.close();
  });
});

describe("the hook CI's job where bubblewrap cannot start", () => {
  it("fails the check with the sandbox error instead of running it unconfined as the bare repository's owner", async () => {
    const sentinel = join(tempDir('splintercat-sentinel-'), 'ran');
    const { remote, request, job } = await requested(`echo ran > '${sentinel}'`);
    job.close();
    const hooks = hookFiles();
    const bin = tempDir('splintercat-no-bwrap-');
    writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
    chmodSync(join(bin, 'bwrap'), 0o755);
    const ran = spawnSync(join(hooks, 'splintercat-check-job'), [remote.bare, checkRefs('up', request.id).request], {
      env: { ...process.env, ...testGitEnv, PATH: `${bin}:${process.env.PATH ?? ''}` },
      encoding: 'utf8',
    });
    expect(ran.status).not.toBe(0);
    expect(`${ran.stdout}${ran.stderr}`).toContain('check.sandbox is bwrap, but bubblewrap cannot run here');
    expect(existsSync(sentinel)).toBe(false);
    expect(remote.refs().filter((r) => r.endsWith('/result'))).toEqual([]);
  }, 60_000);
});

describe("the hook CI's job on a request replaced before its fetch", () => {
  it('prints its end line with the failure, so a watcher of the log never waits on it', async () => {
    const remote = CiRemote.create({ 'check.sh': 'echo fine\n' }, { hook: false });
    const hooks = hookFiles();
    const gone = checkRefs('up', 'quick-000000000000-00000000-0000000000000000').request;
    const ran = spawnSync(join(hooks, 'splintercat-check-job'), [remote.bare, gone], {
      env: { ...process.env, ...testGitEnv },
      encoding: 'utf8',
    });
    expect(ran.status).toBe(1);
    expect(ran.stdout).toContain(`splintercat-check-job: ${gone} (pid`);
    expect(ran.stdout).toContain(`splintercat-check-job: ${gone} done (1)`);
  }, 60_000);
});
