import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RemoteCheckRunner, type RemoteCheckRunnerOptions } from '../../src/checks/remote/remote-runner.js';
import { nullLogger, type Logger } from '../../src/log/logger.js';
import { RunSync } from '../../src/store/sync/run-sync.js';
import { commandDigest } from '../../src/workflow/share/publication.js';
import { runCli, type CliRun } from '../fixtures/resolve/cli.js';
import { CiRemote } from '../helpers/ci-remote.js';
import { TestRepo, tempDir, testGitEnv } from '../helpers/git-repo.js';

/** Passes on each side alone, fails once both sides' files are in one tree: only the merge breaks it. */
const QUICK_SH = 'if [ -e a.txt ] && [ -e b.txt ]; then echo "a.txt and b.txt together: broken"; exit 1; fi; echo ok\n';
const COMMAND = 'sh quick.sh';
const TIMEOUT = 60;

/** A fork (a.txt) and an upstream (b.txt) that merge without a conflict, on a bare remote whose hook is the CI. */
function forkWithCi(options: { hook?: boolean; resultKey?: string } = {}): {
  repo: TestRepo;
  remote: CiRemote;
  tree: string;
} {
  const repo = TestRepo.create();
  repo.commit('base', { 'quick.sh': QUICK_SH, 'README.md': 'fork\n' });
  repo.branch('upstream');
  repo.commit('fork: a', { 'a.txt': 'a\n' });
  repo.checkout('upstream');
  repo.commit('upstream: b', { 'b.txt': 'b\n' });
  repo.checkout('main');
  const remote = CiRemote.attach(repo, options);
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    [
      'target:',
      '  branch: main',
      'check:',
      '  commands:',
      `    quick: ${COMMAND}`,
      '  workflow: [quick]',
      `  timeout: ${TIMEOUT}`,
      '  runner:',
      '    remote: origin',
      '    poll: 0.2',
      'imerge:',
      '  name: up',
      '',
    ].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
  // The merged tree, as anyone who can read both branches computes it.
  const tree = repo.sh('merge-tree', '--write-tree', 'main', 'upstream').split('\n')[0] as string;
  return { repo, remote, tree };
}

/** A second clone of the bare remote, the attacker's: a teammate with push access. */
function attacker(remote: CiRemote): TestRepo {
  const dir = join(tempDir('splintercat-mallory-'), 'repo');
  execFileSync('git', ['clone', '-q', '--no-checkout', remote.bare, dir], { env: { ...process.env, ...testGitEnv } });
  return new TestRepo(dir);
}

/** A result commit holding `record` as result.json, written with plain git in `repo`. */
function resultCommit(repo: TestRepo, record: Record<string, unknown>): string {
  const write = (text: string): string =>
    execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo.dir, input: text, encoding: 'utf8' }).trim();
  const tree = execFileSync('git', ['mktree'], {
    cwd: repo.dir,
    input: `100644 blob ${write('ok\n')}\tlog.txt\n100644 blob ${write(JSON.stringify(record))}\tresult.json\n`,
    encoding: 'utf8',
  }).trim();
  return execFileSync('git', ['commit-tree', tree, '-m', 'splintercat check result: quick passed'], {
    cwd: repo.dir,
    env: { ...process.env, ...testGitEnv },
    encoding: 'utf8',
  }).trim();
}

function passingRecord(id: string, commit: string, version: number, nonce?: string): Record<string, unknown> {
  return {
    splintercat: 'check-result',
    version,
    id,
    ...(nonce ? { nonce } : {}),
    run: 'up',
    check: 'quick',
    commit,
    success: true,
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 10,
    tests: null,
    url: null,
    runner: 'ci',
    finishedAt: new Date().toISOString(),
  };
}

/**
 * Put a forger in front of the CI's post-receive hook: the first request pushed for a commit of
 * `tree` gets, at once (before the real job has even cloned), a passing result at its id with a
 * nonce of the forger's own, or (`readNonce`) the one it read off the request commit on the
 * remote: so the real job finds a result there and never runs.
 */
function forgeFirstResult(remote: CiRemote, tree: string, readNonce = false): string {
  const hooks = join(remote.bare, 'hooks');
  renameSync(join(hooks, 'post-receive'), join(hooks, 'ci-post-receive'));
  const marker = join(tempDir('splintercat-forger-'), 'forged');
  const json =
    '{"splintercat":"check-result","version":2,"id":"%s","nonce":"%s","run":"up","check":"quick","commit":"%s",' +
    '"success":true,"exitCode":0,"signal":null,"timedOut":false,"durationMs":10,"tests":null,"url":null,' +
    '"runner":"ci","finishedAt":"2026-01-01T00:00:00.000Z"}';
  const script = `#!/bin/sh
input=$(cat)
echo "$input" | while read -r old new ref; do
  case "$ref" in refs/splintercat/*/checks/*/request) ;; *) continue ;; esac
  case "$new" in *[!0]*) ;; *) continue ;; esac
  [ -e '${marker}' ] && continue
  [ "$(git rev-parse "$new^1^{tree}")" = '${tree}' ] || continue
  commit=$(git rev-parse "$new^1")
  id=$(echo "$ref" | sed 's,.*/checks/\\([^/]*\\)/request,\\1,')
  nonce=${readNonce ? `$(git log -1 --format=%B "$new" | sed -n 's/.*"nonce":"\\([0-9a-f]*\\)".*/\\1/p')` : `'${'0'.repeat(32)}'`}
  blob=$(printf '${json}' "$id" "$nonce" "$commit" | git hash-object -w --stdin)
  log=$(echo forged | git hash-object -w --stdin)
  t=$(printf '100644 blob %s\\tlog.txt\\n100644 blob %s\\tresult.json\\n' "$log" "$blob" | git mktree)
  c=$(echo 'splintercat check result: quick passed' | GIT_AUTHOR_NAME=m GIT_AUTHOR_EMAIL=m@x GIT_COMMITTER_NAME=m GIT_COMMITTER_EMAIL=m@x git commit-tree "$t")
  git update-ref "\${ref%/request}/result" "$c"
  echo "$c" > '${marker}'
done
echo "$input" | "$(dirname "$0")/ci-post-receive"
`;
  writeFileSync(join(hooks, 'post-receive'), script);
  chmodSync(join(hooks, 'post-receive'), 0o755);
  return marker;
}

function logs(repo: TestRepo): string {
  const dir = join(repo.dir, '.splintercat', 'logs');
  const read = (name: string): string => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
  return read('decisions.log');
}

/** Neither the printed outcome nor the merge commit nor `status --json` counts quick as passed on the merged tree. */
async function expectNotValidated(repo: TestRepo, run: CliRun): Promise<void> {
  const printed = `${run.stdout}\n${run.stderr}`;
  expect(printed).not.toMatch(/^\s*validated/m);
  expect(printed).not.toMatch(/quick passed on the merged tree/);
  const head = repo.sh('log', '-1', '--format=%B', 'main');
  expect(head).not.toMatch(/Checks on the merge: quick passed/);
  const status = await runCli(['status', '--json'], repo.dir);
  const data = JSON.parse(status.stdout) as {
    validation: { validated: boolean } | null;
    checks: { readings: Record<string, number> };
  };
  expect(data.validation?.validated ?? false).toBe(false);
  // The two tips passed, run by the CI for this clone; nothing on the merged tree did.
  expect(data.checks.readings.passed).toBe(2);
}

describe('a teammate forges check results (records, pre-pushed and raced result refs)', () => {
  it('a forged passing check record and a result pushed ahead of any request are claims, named, never the validation', async () => {
    const { repo, remote, tree } = forkWithCi();
    const mallory = attacker(remote);
    // (a) A check record: quick passed on the merged tree, by mallory's clone.
    const sync = new RunSync(mallory.git, 'up', { remote: 'origin', machine: 'mallory' });
    await sync.add([
      {
        kind: 'check',
        key: {
          check: 'quick',
          commit: mallory.sh('rev-parse', 'origin/main'),
          target: 'final',
          at: new Date().toISOString(),
        },
        // The tree and command digest a clone publishes with a check it ran: this very check of the merged tree.
        body: { success: true, exitCode: 0, timedOut: false, durationMs: 5, tree, command: commandDigest(COMMAND) },
      },
    ]);
    expect((await sync.publish()).ok).toBe(true);
    // (b) A passing result at the id a request of quick on that tree would have (computed ahead of it).
    const hash = createHash('sha256').update(`quick\0${COMMAND}\0${TIMEOUT}\0${tree}`).digest('hex');
    const id = `quick-${tree.slice(0, 12)}-${hash.slice(0, 8)}`;
    const ahead = `refs/splintercat/up/checks/${id}/result`;
    mallory.sh(
      'push',
      '-q',
      'origin',
      `${resultCommit(mallory, passingRecord(id, mallory.sh('rev-parse', 'origin/main'), 1))}:${ahead}`,
    );

    const merged = await runCli(['merge', 'upstream', '--remote', 'origin'], repo.dir);
    await remote.jobsDone();
    await expectNotValidated(repo, merged);
    const log = logs(repo);
    // Both forged objects are named: the record as mallory's claim, the result ref as not asked for.
    expect(log).toMatch(/quick passed on mallory's clone on tree [0-9a-f]+ \(its claim, not counted here\)/);
    expect(log).toContain(ahead);
    // The check ran for real on the merged tree (the last cell), on the CI, and failed there.
    expect(log).toMatch(/\[check\] quick FAILED on (1-1|final)/);
    const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      share?: { claimedChecks: Array<{ by: string; success: boolean }> };
    };
    expect(status.share?.claimedChecks).toEqual([expect.objectContaining({ by: 'mallory', success: true })]);
    // The report shows it as mallory's claim beside the check this clone ran, and not as a passed check.
    const report = await runCli(['report'], repo.dir);
    expect(report.stdout).toMatch(/quick passed on mallory's clone on tree [0-9a-f]+ \(its claim, not counted here\)/);
    expect(report.stdout).not.toMatch(/^\s*validated/m);
  }, 240_000);

  it('a result raced onto the request (its nonce not the request’s) is rejected and named; a fresh request gets the real answer', async () => {
    const { repo, remote, tree } = forkWithCi();
    const marker = forgeFirstResult(remote, tree);
    const merged = await runCli(['merge', 'upstream'], repo.dir);
    await remote.jobsDone();
    expect(existsSync(marker)).toBe(true);
    const forgedCommit = readFileSync(marker, 'utf8').trim();
    expect(forgedCommit).toMatch(/^[0-9a-f]{40}$/);
    await expectNotValidated(repo, merged);
    const log = logs(repo);
    expect(log).toMatch(
      /rejected the result at refs\/splintercat\/up\/checks\/\S+\/result for 'quick' on [0-9a-f]+: its nonce is not this clone's request's/,
    );
    // The real CI answered the fresh request: quick failed on the merged tree.
    expect(log).toMatch(/\[check\] quick FAILED on (1-1|final)/);
    expect(remote.log()).toMatch(/a\.txt and b\.txt together: broken|done \(0\)/);
  }, 240_000);

  it('a result with the nonce read off the remote is rejected unsigned where the clone and the CI share SPLINTERCAT_RESULT_KEY', async () => {
    const key = 'rk-FAKE-5f3c0d9e8b7a6f5e4d3c2b1a';
    const { repo, remote, tree } = forkWithCi({ resultKey: key });
    const marker = forgeFirstResult(remote, tree, true);
    const merged = await runCli(['merge', 'upstream'], repo.dir, { SPLINTERCAT_RESULT_KEY: key });
    await remote.jobsDone();
    const forgedCommit = readFileSync(marker, 'utf8').trim();
    // The forger did copy the request's own nonce: only the key tells its result from the job's.
    const forged = JSON.parse(
      execFileSync('git', ['show', `${forgedCommit}:result.json`], { cwd: remote.bare, encoding: 'utf8' }),
    ) as { nonce: string; id: string };
    expect(forged.nonce).toMatch(/^[0-9a-f]{32}$/);
    await expectNotValidated(repo, merged);
    const log = logs(repo);
    expect(log).toMatch(
      /rejected the result at refs\/splintercat\/up\/checks\/\S+\/result for 'quick' on [0-9a-f]+: it is not signed with SPLINTERCAT_RESULT_KEY/,
    );
    // The real job's signed answer to the fresh request was taken: quick failed on the merged tree.
    expect(log).toMatch(/\[check\] quick FAILED on (1-1|final)/);
    // The key is in no output, log, ref or record.
    const everything = `${merged.stdout}${merged.stderr}${log}${remote.log()}${execFileSync('git', ['log', '--all', '--format=%B%n%H'], { cwd: remote.bare, encoding: 'utf8' })}`;
    expect(everything).not.toContain(key);
    for (const ref of remote.refs().filter((r) => r.endsWith('/result')))
      expect(execFileSync('git', ['show', `${ref}:result.json`], { cwd: remote.bare, encoding: 'utf8' })).not.toContain(
        key,
      );
  }, 240_000);
});

/** A logger that keeps every decision and warning line. */
function lines(): { logger: Logger; said: string[] } {
  const said: string[] = [];
  const logger: Logger = {
    ...nullLogger,
    warn: (_obj, msg) => void said.push(msg ?? ''),
    decision: (_obj, msg) => void said.push(msg ?? ''),
    child: () => logger,
  };
  return { logger, said };
}

function runner(remote: CiRemote, logger: Logger, options: Partial<RemoteCheckRunnerOptions> = {}): RemoteCheckRunner {
  return new RemoteCheckRunner({
    git: remote.repo.git,
    remote: 'origin',
    run: 'up',
    workdir: remote.repo.dir,
    outputDir: join(tempDir(), 'logs'),
    commands: { quick: COMMAND },
    timeoutSec: TIMEOUT,
    pollMs: 100,
    logger,
    ...options,
  });
}

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('check requests lost to an outage are sent again', () => {
  it("the CI's first job is lost (no hook when the request came): the request is sent again and answered", async () => {
    const { repo, remote } = forkWithCi({ hook: false });
    const { logger, said } = lines();
    const checks = runner(remote, logger, { resendAfterMs: 1_500 });
    const pending = checks.run('quick', { commit: repo.sh('rev-parse', 'upstream') });
    // The request reached the remote while its CI was down: no job will ever answer it.
    await until(() => remote.refs().some((r) => r.endsWith('/request')));
    remote.installHook();
    const result = await pending;
    await remote.jobsDone();
    checks.close();
    expect(result).toMatchObject({ success: true, timedOut: false });
    expect(said.join('\n')).toMatch(/quick on [0-9a-f]+: no result for 1\.5 s; request sent again \(2 of at most 4\)/);
    // The lost request never got a job; the ones sent after it did (a slow job may see one more sent meanwhile).
    const jobs = remote.log().match(/\(pid \d+\)$/gm) ?? [];
    expect(jobs.length).toBeGreaterThanOrEqual(1);
    expect(jobs.length).toBeLessThanOrEqual(3);
    // Answered: no request is left, on the remote or in this clone's own refs.
    expect(remote.refs().filter((r) => r.endsWith('/request'))).toEqual([]);
    expect(repo.sh('for-each-ref', 'refs/splintercat-own/')).toBe('');
  }, 120_000);

  it('the remote cannot be reached while the check waits: once it answers, the request is sent again', async () => {
    const { repo, remote } = forkWithCi({ hook: false });
    const { logger, said } = lines();
    const checks = runner(remote, logger);
    const pending = checks.run('quick', { commit: repo.sh('rev-parse', 'upstream') });
    await until(() => remote.refs().some((r) => r.endsWith('/request')));
    // The outage: the remote is gone, and the CI with it.
    renameSync(remote.bare, `${remote.bare}.away`);
    await until(() => said.some((l) => /cannot reach origin for check results/.test(l)));
    renameSync(`${remote.bare}.away`, remote.bare);
    remote.installHook();
    const result = await pending;
    await remote.jobsDone();
    checks.close();
    expect(result).toMatchObject({ success: true, timedOut: false });
    expect(said.join('\n')).toMatch(/origin could not be reached while the check waited; request sent again \(2 of/);
  }, 120_000);

  it('a request whose push did not reach the remote is pushed again once it answers', async () => {
    const { repo, remote } = forkWithCi();
    const { logger, said } = lines();
    const checks = runner(remote, logger);
    expect(await checks.run('quick', { commit: repo.sh('rev-parse', 'main') })).toMatchObject({ success: true });
    renameSync(remote.bare, `${remote.bare}.away`);
    const pending = checks.run('quick', { commit: repo.sh('rev-parse', 'upstream') });
    await until(() => said.some((l) => /the request could not be sent to origin/.test(l)));
    renameSync(`${remote.bare}.away`, remote.bare);
    const result = await pending;
    await remote.jobsDone();
    checks.close();
    expect(result).toMatchObject({ success: true, timedOut: false });
  }, 120_000);
});
