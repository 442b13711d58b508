import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { ciSetup } from '../../src/checks/remote/ci-jobs.js';
import { RemoteCheckRunner } from '../../src/checks/remote/remote-runner.js';
import { signedWith } from '../../src/checks/remote/result-key.js';
import { cliShellCommand, repoRoot, runCli } from '../fixtures/resolve/cli.js';
import { TestRepo, tempDir, testGitEnv } from '../helpers/git-repo.js';

/**
 * The generated GitHub and GitLab jobs run as their CI would run them: the YAML parsed, each
 * step's shell lines run by bash with the variables the CI gives, in a checkout laid out as the
 * CI lays it out, the push going to a local bare repository named by the CI's own variables. The
 * only step replaced is the install from the registry (no network in tests): its text is checked,
 * then it copies a wrapper of this checkout's CLI to the path it would install to.
 */

const TOKEN = 'tok-FAKE-123';
const JOB_TOKEN = 'tok-JOBFAKE-456';
const NPM_SECRET = 'npm-FAKE-secret-789';
/** The CI's own NPM_TOKEN (a repository secret, a CI/CD variable), which the job's check gets. */
const CI_NPM = 'npm-CI-value-000';
/** The CI's SPLINTERCAT_RESULT_KEY (a repository secret; a CI/CD variable of the environment splintercat-results). */
const RESULT_KEY = 'rk-FAKE-0123456789abcdef';
const VERSION = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** Whether `text` holds `secret` in any form a check could turn it into: plain, reversed, inside base64. */
function leaks(text: string, secret: string): boolean {
  const forms = [secret, [...secret].reverse().join('')];
  const decoded = [...text.matchAll(/[A-Za-z0-9+/=]{12,}/g)].map((m) => Buffer.from(m[0], 'base64').toString('latin1'));
  return [text, ...decoded].some((t) => forms.some((f) => t.includes(f)));
}

/** Runs a shell script; resolves with its output whatever its exit code. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, out }));
  });
}

interface Arena {
  repo: TestRepo;
  /** Where the CI's server URL points: the bare repository is `<server>/group/remote.git`. */
  server: string;
  bare: string;
  commit: string;
  sentinel: string;
  /** The wrapper the install step is replaced by, and where it logs the path it ran from. */
  wrapper: string;
  ranFrom: string;
  base: Record<string, string>;
}

/** A fork whose commit under test is upstream's hostile tree, and a bare remote at the CI's URL. */
function arena(): Arena {
  const root = tempDir('splintercat-ci-attack-');
  const server = join(root, 'server');
  const bare = join(server, 'group', 'remote.git');
  mkdirSync(join(server, 'group'), { recursive: true });
  execFileSync('git', ['init', '-q', '--bare', bare], { env: { ...process.env, ...testGitEnv } });
  const sentinel = join(root, 'upstream-splintercat-ran');
  const ranFrom = join(root, 'splintercat-ran-from');
  const wrapper = join(root, 'wrapper');
  writeFileSync(wrapper, `#!/bin/sh\necho "$0" >> '${ranFrom}'\nexec ${cliShellCommand} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const repo = TestRepo.create();
  repo.commit('base', { 'README.md': 'fork\n' });
  repo.write({
    // Upstream's own splintercat, which `npx splintercat` would run from the tree.
    'node_modules/.bin/splintercat': `#!/bin/sh\n{ echo "upstream code ran: $*"; env; } > '${sentinel}'\nexit 0\n`,
    // Upstream's own workflow, which GitHub would run for a pushed branch holding it.
    '.github/workflows/evil.yml': `on: push\njobs:\n  steal:\n    runs-on: ubuntu-latest\n    steps:\n      - run: touch '${sentinel}'\n`,
    '.gitlab-ci.yml': `steal:\n  script:\n    - touch '${sentinel}'\n`,
    'steal.sh': `{ echo "BASH_ENV ran"; env; } >> '${sentinel}'\n`,
    // The check prints what it can reach of the job's secrets, in plain, reversed and base64.
    'check.sh': [
      '#!/bin/sh',
      'echo ATTACK-CHECK-RAN',
      'echo "npm token length: ${#NPM_TOKEN}"',
      'echo "--- git config"; cat .git/config',
      'echo "--- env"; env',
      'echo "--- reversed"; { cat .git/config; env; } | rev',
      'echo "--- base64"; { cat .git/config; env; } | base64 -w0; echo',
      // The steps after this one would source it with their token (GitHub applies GITHUB_ENV).
      'if [ -n "$GITHUB_ENV" ]; then echo "BASH_ENV=$PWD/steal.sh" >> "$GITHUB_ENV"; fi',
      'exit 0',
      '',
    ].join('\n'),
  });
  chmodSync(join(repo.dir, 'node_modules/.bin/splintercat'), 0o755);
  const commit = repo.commit('upstream: a hostile tree');
  repo.sh('remote', 'add', 'origin', bare);
  repo.sh('push', '-q', 'origin', 'main');
  const home = join(root, 'home');
  mkdirSync(home);
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: root, ...testGitEnv };
  return { repo, server, bare, commit, sentinel, wrapper, ranFrom, base };
}

/** The install line of a generated job, checked (outside the checkout, this version, no scripts) and replaced by the wrapper. */
function installed(line: string, a: Arena): string | null {
  const m = /^npm install --prefix "([^"]+)" --ignore-scripts --no-audit --no-fund splintercat@(\S+)$/.exec(
    line.trim(),
  );
  if (!m) return null;
  expect(m[2]).toBe(VERSION);
  expect(m[1]).toMatch(/^\$(RUNNER_TEMP\/splintercat|splintercat_home)$/);
  return `mkdir -p "${m[1]}/node_modules/.bin" && cp '${a.wrapper}' "${m[1]}/node_modules/.bin/splintercat"`;
}

/** Send the check through a RemoteCheckRunner (as a run does), run `job` once its request branch is on the remote. */
async function requestThrough(
  a: Arena,
  jobs: Record<string, string>,
  job: (branch: string) => Promise<string>,
): Promise<{ success: boolean; output: string; request: string }> {
  // The run's configuration expanded `${NPM_TOKEN}` into the command, as loadConfig does.
  const saved = process.env.NPM_TOKEN;
  process.env.NPM_TOKEN = NPM_SECRET;
  onTestFinished(() => {
    if (saved === undefined) delete process.env.NPM_TOKEN;
    else process.env.NPM_TOKEN = saved;
  });
  const runner = new RemoteCheckRunner({
    git: a.repo.git,
    remote: 'origin',
    run: 'r1',
    workdir: a.repo.dir,
    outputDir: join(tempDir(), 'logs'),
    commands: { test: `NPM_TOKEN=${NPM_SECRET} sh ./check.sh` },
    timeoutSec: 60,
    trigger: 'branch',
    jobs,
    pollMs: 100,
  });
  onTestFinished(() => runner.close());
  const pending = runner.run('test', { commit: a.commit });
  let branch = '';
  for (let i = 0; i < 600 && !branch; i++) {
    branch = execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/heads/splintercat/'], {
      cwd: a.bare,
      encoding: 'utf8',
    }).trim();
    if (!branch) await new Promise((r) => setTimeout(r, 50));
  }
  expect(branch).toMatch(/^refs\/heads\/splintercat\/r1\/checks\//);
  // The request commit, kept: the run retires the branch once answered.
  const request = execFileSync('git', ['rev-parse', branch], { cwd: a.bare, encoding: 'utf8' }).trim();
  const output = await job(branch.slice('refs/heads/'.length));
  const result = await pending;
  return { success: result.success, output, request };
}

/** Everything of the remote a reader gets: every ref, commit message and result file. */
function remoteText(bare: string): string {
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: bare, encoding: 'utf8' });
  const refs = git('for-each-ref', '--format=%(refname) %(objectname)');
  let text = refs + git('log', '--all', '--format=%B');
  for (const line of refs.split('\n').filter((l) => l.includes('/result ')))
    for (const file of ['result.json', 'log.txt']) text += git('show', `${line.split(' ')[1]}:${file}`);
  return text;
}

/** The assertions every job must meet after it ran. */
function assertHeld(a: Arena, run: { success: boolean; output: string; request: string }, jobFile: string): void {
  // Upstream's splintercat never ran; the one installed outside the checkout did.
  expect(existsSync(a.sentinel)).toBe(false);
  const ranFrom = readFileSync(a.ranFrom, 'utf8').trim().split('\n');
  expect(ranFrom.length).toBeGreaterThan(0);
  for (const path of ranFrom) expect(path).not.toContain('/workspace/');
  // The check did run, and its result came back.
  const remote = remoteText(a.bare);
  expect(remote).toContain('ATTACK-CHECK-RAN');
  expect(run.success).toBe(true);
  // The job that pushed signed the result with the key, which the check's job never had.
  const result = execFileSync('git', ['for-each-ref', '--format=%(objectname)', 'refs/splintercat/*/checks/*/result'], {
    cwd: a.bare,
    encoding: 'utf8',
  }).trim();
  const record = JSON.parse(
    execFileSync('git', ['show', `${result}:result.json`], { cwd: a.bare, encoding: 'utf8' }),
  ) as { signature?: string };
  expect(signedWith(record, RESULT_KEY)).toBe(true);
  // No token in any form: not in the result's log or record, the refs, the messages, the job's output.
  for (const secret of [TOKEN, JOB_TOKEN, NPM_SECRET, RESULT_KEY]) {
    expect(leaks(remote, secret), `${secret} on the remote`).toBe(false);
    expect(leaks(run.output, secret), `${secret} in the job's output`).toBe(false);
  }
  // The request branch holds the job file alone: upstream's workflows are never pushed as a branch.
  const tree = execFileSync('git', ['ls-tree', '-r', '--name-only', run.request], { cwd: a.bare, encoding: 'utf8' });
  expect(tree.trim().split('\n')).toEqual([jobFile]);
  // The request carries the template, which the job's shell expands from its own environment.
  const message = execFileSync('git', ['log', '-1', '--format=%B', run.request], { cwd: a.bare, encoding: 'utf8' });
  expect(message).toContain('NPM_TOKEN=${NPM_TOKEN} sh ./check.sh');
  // ... which it did: the check got the CI's own NPM_TOKEN, its plain value redacted from the log.
  expect(remote).toContain(`npm token length: ${CI_NPM.length}`);
  expect(remote).not.toContain(CI_NPM);
}

interface GithubStep {
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  env?: Record<string, string>;
}

/** One job of the workflow on a fresh runner, as GitHub runs it; returns what its steps printed. */
async function githubJob(a: Arena, steps: GithubStep[], branch: string, artifacts: string): Promise<string> {
  const root = tempDir('splintercat-gh-runner-');
  const workspace = join(root, 'workspace');
  const runnerTemp = join(root, 'temp');
  mkdirSync(workspace);
  mkdirSync(runnerTemp);
  const expand = (v: string): string =>
    v
      .replace(/\$\{\{\s*github\.token\s*\}\}/g, TOKEN)
      .replace(/\$\{\{\s*secrets\.NPM_TOKEN\s*\}\}/g, CI_NPM)
      .replace(/\$\{\{\s*secrets\.SPLINTERCAT_RESULT_KEY\s*\}\}/g, RESULT_KEY)
      .replace(/\$\{\{\s*runner\.temp\s*\}\}/g, runnerTemp);
  const env: Record<string, string> = {
    ...a.base,
    GITHUB_ACTIONS: 'true',
    GITHUB_REF: `refs/heads/${branch}`,
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: runnerTemp,
    GITHUB_SERVER_URL: `file://${a.server}`,
    GITHUB_REPOSITORY: 'group/remote',
    GITHUB_RUN_ID: '1',
    RUNNER_NAME: 'attack-runner',
    GITHUB_ENV: join(runnerTemp, 'github-env'),
  };
  writeFileSync(env.GITHUB_ENV as string, '');
  let output = '';
  for (const step of steps) {
    // What earlier steps of this job wrote to GITHUB_ENV is in the environment of the next ones.
    const written = readFileSync(env.GITHUB_ENV as string, 'utf8').split('\n');
    const fromEnvFile = Object.fromEntries(written.filter((l) => l.includes('=')).map((l) => l.split(/=(.*)/s, 2)));
    const uses = step.uses?.split('@')[0];
    const path = expand(String(step.with?.path ?? ''));
    if (uses === 'actions/checkout') githubCheckout(workspace, `file://${a.server}/group/remote.git`, branch, step);
    else if (uses === 'actions/upload-artifact') cpSync(path, join(artifacts, String(step.with?.name), basename(path)));
    else if (uses === 'actions/download-artifact')
      cpSync(join(artifacts, String(step.with?.name)), path, { recursive: true });
    if (step.run === undefined) continue;
    const script = installed(step.run, a) ?? step.run;
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v)]));
    const ran = await bash(script, workspace, { ...env, ...fromEnvFile, ...stepEnv });
    output += ran.out;
    if (ran.code !== 0) throw new Error(`step failed (${ran.code}): ${script}\n${ran.out}`);
  }
  return output;
}

/**
 * As actions/checkout lays the workspace out: the branch at the depth asked, and unless told
 * otherwise the job token persisted in .git/config as an authorization header.
 */
function githubCheckout(workspace: string, url: string, branch: string, step: GithubStep): void {
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: workspace, env: { ...process.env, ...testGitEnv }, encoding: 'utf8' });
  git('init', '-q');
  git('remote', 'add', 'origin', url);
  const depth = String(step.with?.['fetch-depth'] ?? 1);
  git('fetch', '-q', '--depth', depth, 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`);
  git('checkout', '-q', '-B', branch, `refs/remotes/origin/${branch}`);
  if (step.with?.['persist-credentials'] !== false) {
    const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
    git('config', '--local', 'http.https://github.com/.extraheader', header);
  }
}

interface GitlabJob {
  stage: string;
  script: string[];
  variables?: Record<string, string>;
  artifacts?: { paths: string[] };
  environment?: { name: string };
}

/**
 * One job of the pipeline as GitLab's runner runs it: its own build directory (a clone of the
 * commit at depth 2, detached, the job token in the remote's URL, unless GIT_STRATEGY is none),
 * the artifacts of earlier jobs in it, one shell for the whole script, each line echoed first.
 * Both jobs get the push token, as an unscoped CI/CD variable gives it, and the job token, also
 * inside CI_REPOSITORY_URL as GitLab gives it; the result key only the job of the environment
 * splintercat-results, as a variable scoped to it.
 */
async function gitlabJob(a: Arena, job: GitlabJob, branch: string, artifacts: string): Promise<string> {
  const build = join(tempDir('splintercat-gl-runner-'), 'workspace');
  mkdirSync(build);
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: build, env: { ...process.env, ...testGitEnv }, encoding: 'utf8' });
  const sha = execFileSync('git', ['rev-parse', `refs/heads/${branch}`], { cwd: a.bare, encoding: 'utf8' }).trim();
  if (job.variables?.GIT_STRATEGY !== 'none') {
    git('init', '-q');
    git('remote', 'add', 'origin', `https://gitlab-ci-token:${JOB_TOKEN}@gitlab.example.com/group/remote.git`);
    const insteadOf = `url.https://gitlab-ci-token:${JOB_TOKEN}@gitlab.example.com/.insteadOf`;
    git('config', '--local', insteadOf, 'https://gitlab.example.com/');
    git(
      'fetch',
      '-q',
      '--depth',
      job.variables?.GIT_DEPTH ?? '50',
      `file://${a.bare}`,
      `+${sha}:refs/remotes/origin/${branch}`,
    );
    git('checkout', '-q', '--detach', sha);
  }
  cpSync(artifacts, build, { recursive: true });
  const lines = job.script.map((line) => installed(line, a) ?? line);
  const text = lines.map((l) => `printf '%s\\n' ${`'$ ${l.replace(/'/g, `'\\''`)}'`}\n${l}`).join('\n');
  const ran = await bash(text, build, {
    ...a.base,
    GITLAB_CI: 'true',
    CI_PROJECT_DIR: build,
    CI_COMMIT_BRANCH: branch,
    CI_COMMIT_SHA: sha,
    CI_SERVER_URL: `file://${a.server}`,
    CI_SERVER_HOST: 'gitlab.example.com',
    CI_PROJECT_PATH: 'group/remote',
    CI_JOB_URL: 'https://gitlab.example.com/group/remote/-/jobs/1',
    CI_JOB_TOKEN: JOB_TOKEN,
    CI_REPOSITORY_URL: `https://gitlab-ci-token:${JOB_TOKEN}@gitlab.example.com/group/remote.git`,
    NPM_TOKEN: CI_NPM,
    SPLINTERCAT_PUSH_TOKEN: TOKEN,
    ...(job.environment?.name === 'splintercat-results' ? { SPLINTERCAT_RESULT_KEY: RESULT_KEY } : {}),
  });
  if (ran.code !== 0) throw new Error(`job ${job.stage} failed (${ran.code})\n${ran.out}`);
  for (const path of job.artifacts?.paths ?? []) cpSync(join(build, path), join(artifacts, path));
  return ran.out;
}

describe('attack: the generated CI jobs and their token', () => {
  it.each([
    ['where the sandbox runs', false],
    // As on a runner whose kernel refuses bubblewrap: the check then runs unconfined and can
    // write GITHUB_ENV (a BASH_ENV for the steps after it), which only a job of its own defeats.
    ['where the sandbox cannot start', true],
  ])(
    'GitHub, %s: the jobs run no code of the tree outside the check, and the token reaches nothing',
    async (_, noSandbox) => {
      const a = arena();
      if (noSandbox) {
        const bin = tempDir('splintercat-no-bwrap-');
        writeFileSync(
          join(bin, 'bwrap'),
          '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
        );
        chmodSync(join(bin, 'bwrap'), 0o755);
        a.base.PATH = `${bin}:${a.base.PATH}`;
      }
      const setup = ciSetup('github', { version: VERSION, passthrough: ['NPM_TOKEN'], remote: 'origin', hookDir: '' });
      for (const f of setup.files) a.repo.write({ [f.path]: f.content });
      const workflow = parse(setup.files[0]?.content ?? '') as { jobs: Record<string, { steps: GithubStep[] }> };
      // The key is the pushing job's only: the check's job never names it.
      expect(JSON.stringify(workflow.jobs.check)).not.toContain('SPLINTERCAT_RESULT_KEY');
      expect(JSON.stringify(workflow.jobs.report)).toContain('SPLINTERCAT_RESULT_KEY');
      const run = await requestThrough(a, setup.jobs, async (branch) => {
        const artifacts = tempDir('splintercat-gh-artifacts-');
        let output = '';
        // Each job on a runner of its own, in the order `needs` gives; artifacts cross between them.
        for (const name of Object.keys(workflow.jobs))
          output += await githubJob(a, workflow.jobs[name]?.steps ?? [], branch, artifacts);
        return output;
      });
      assertHeld(a, run, '.github/workflows/splintercat-checks.yml');
    },
    120_000,
  );

  it('GitLab: the jobs drop the runner token from .git/config, print no token, and run no code of the tree', async () => {
    const a = arena();
    const setup = ciSetup('gitlab', { version: VERSION, passthrough: ['NPM_TOKEN'], remote: 'origin', hookDir: '' });
    for (const f of setup.files) a.repo.write({ [f.path]: f.content });
    const pipeline = parse(setup.files[0]?.content ?? '') as { stages: string[] } & Record<string, unknown>;
    const jobs = pipeline.stages.map(
      (stage) => Object.values(pipeline).find((j) => (j as GitlabJob | null)?.stage === stage) as GitlabJob,
    );
    expect(jobs.map((j) => j.stage)).toEqual(['check', 'report']);
    // GitLab prints every script line before it runs it: none may name a token or the key to expand.
    for (const line of jobs.flatMap((j) => j.script))
      expect(line).not.toMatch(/\$\{?(SPLINTERCAT_PUSH_TOKEN|CI_JOB_TOKEN|SPLINTERCAT_RESULT_KEY)/);
    const run = await requestThrough(a, setup.jobs, async (branch) => {
      const artifacts = tempDir('splintercat-gl-artifacts-');
      let output = '';
      for (const job of jobs) output += await gitlabJob(a, job, branch, artifacts);
      // The script really ran: the push reported the result.
      expect(output).toContain('result pushed to');
      return output;
    });
    assertHeld(a, run, '.gitlab-ci.yml');
  }, 120_000);

  it('a secret no variable holds is refused before it reaches a request', async () => {
    const a = arena();
    // The value is known as a secret (a URL's password, a .env key) but no variable holds it.
    const { registerSecrets } = await import('../../src/util/secret-registry.js');
    registerSecrets(['dotenv-FAKE-only-secret']);
    const runner = new RemoteCheckRunner({
      git: a.repo.git,
      remote: 'origin',
      run: 'r1',
      workdir: a.repo.dir,
      outputDir: join(tempDir(), 'logs'),
      commands: { test: 'TOKEN=dotenv-FAKE-only-secret sh ./check.sh' },
      timeoutSec: 5,
      trigger: 'branch',
      jobs: {},
      pollMs: 100,
    });
    onTestFinished(() => runner.close());
    await expect(runner.run('test', { commit: a.commit })).rejects.toThrow(
      /check\.commands\.test holds a secret value/,
    );
    expect(readdirSync(join(a.bare, 'refs', 'heads'))).toEqual(['main']);
    expect(leaks(remoteText(a.bare), 'dotenv-FAKE-only-secret')).toBe(false);
  });

  it("check-report refuses to give the check the job's own token", async () => {
    const run = await runCli(
      ['check-report', '--ref', 'splintercat/r1/checks/x', '--no-push', '--env-passthrough', 'SPLINTERCAT_PUSH_TOKEN'],
      tempDir(),
      { SPLINTERCAT_PUSH_TOKEN: TOKEN },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--env-passthrough SPLINTERCAT_PUSH_TOKEN is refused');
    expect(leaks(run.stdout + run.stderr, TOKEN)).toBe(false);
  });
});
