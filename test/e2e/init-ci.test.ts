import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';

describe('splintercat init --ci', () => {
  it('github: a workflow that starts on request branches, checks out the request with its parent, and reports', async () => {
    const dir = tempDir();
    const run = await runCli(['init', '--ci', 'github'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Wrote .github/workflows/splintercat-checks.yml');
    const workflow = parse(readFileSync(join(dir, '.github/workflows/splintercat-checks.yml'), 'utf8'));
    expect(workflow.on.push.branches).toEqual(['splintercat/*/checks/**']);
    expect(workflow.permissions).toEqual({ contents: 'read' });
    const job = workflow.jobs.check;
    // The check's job cannot write the repository; only the job that pushes, on a runner of its own.
    expect(job.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs.report.permissions).toEqual({ contents: 'write' });
    expect(workflow.jobs.report.needs).toBe('check');
    expect(job['runs-on']).toBe('ubuntu-latest');
    // No token persisted in the checkout's .git/config.
    expect(job.steps[0]).toEqual({
      uses: 'actions/checkout@v4',
      with: { 'fetch-depth': 2, 'persist-credentials': false },
    });
    // splintercat installed outside the checkout at this package's version, run by absolute path.
    const version = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')).version;
    expect(job.steps[2].run).toBe(
      `npm install --prefix "$RUNNER_TEMP/splintercat" --ignore-scripts --no-audit --no-fund splintercat@${version}`,
    );
    const bin = '"$RUNNER_TEMP/splintercat/node_modules/.bin/splintercat"';
    // The check without the token, its result to a bundle; the token only in the step that pushes it.
    expect(job.steps[3].run).toBe(
      `${bin} check-report --ref "$GITHUB_REF" --no-push --bundle "$RUNNER_TEMP/splintercat-result.bundle"\n`,
    );
    expect(job.steps[3].env).toBeUndefined();
    const push = workflow.jobs.report.steps.at(-1);
    // The result key, which signs the result, only where the token is: never in the check's job.
    expect(push.env).toEqual({
      SPLINTERCAT_PUSH_TOKEN: '${{ github.token }}',
      SPLINTERCAT_RESULT_KEY: '${{ secrets.SPLINTERCAT_RESULT_KEY }}',
    });
    expect(JSON.stringify(job)).not.toContain('SPLINTERCAT_RESULT_KEY');
    expect(run.stdout).toContain(
      "Add a repository secret SPLINTERCAT_RESULT_KEY (`openssl rand -hex 32`) and set the same value in each clone's environment",
    );
    expect(push.run).toContain(`${bin} check-report --ref "$GITHUB_REF" --push-only --bundle`);
    expect(workflow.jobs.report.steps.some((s: { uses?: string }) => s.uses?.startsWith('actions/checkout'))).toBe(
      false,
    );
    // splintercat.yaml written with the defaults and check.runner set.
    const config = parse(readFileSync(join(dir, 'splintercat.yaml'), 'utf8'));
    expect(config.check.runner).toMatchObject({
      remote: 'origin',
      trigger: 'branch',
      job_files: { '.github/workflows/splintercat-checks.yml': '.github/workflows/splintercat-checks.yml' },
    });
  });

  it('gitlab: its own pipeline file carried as .gitlab-ci.yml; an existing config keeps its comments and values', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'splintercat.yaml'),
      '# my fork\ncheck:\n  # the suite\n  commands:\n    test: make test\n  env_passthrough: [NPM_TOKEN]\n',
    );
    const run = await runCli(['init', '--ci', 'gitlab', '--remote', 'ci'], dir);
    expect(run.code).toBe(0);
    const pipeline = parse(readFileSync(join(dir, '.splintercat/ci/gitlab-ci.yml'), 'utf8'));
    const job = pipeline['splintercat-check'];
    const report = pipeline['splintercat-report'];
    expect(report.variables).toEqual({ GIT_STRATEGY: 'none' });
    expect(job.image).toBe('node:20');
    expect(job.variables).toEqual({ GIT_DEPTH: '2' });
    expect(job.rules[0].if).toBe('$CI_COMMIT_BRANCH =~ /^splintercat\\/.+\\/checks\\//');
    expect(job.script).toContain('splintercat() { "$splintercat_home/node_modules/.bin/splintercat" "$@"; }');
    expect(report.script.at(-1)).toBe(
      'splintercat check-report --ref "refs/heads/$CI_COMMIT_BRANCH" --push-only --bundle splintercat-result.bundle --remote "$CI_SERVER_URL/$CI_PROJECT_PATH.git"',
    );
    // The check keeps the CI's NPM_TOKEN (check.env_passthrough); the push step runs no check.
    expect(job.script.find((l: string) => l.includes('--no-push'))).toContain('--env-passthrough NPM_TOKEN');
    expect(run.stdout).toContain('Add CI/CD variables NPM_TOKEN (check.env_passthrough)');
    expect(run.stdout).toContain(
      "Add a CI/CD variable SPLINTERCAT_RESULT_KEY (`openssl rand -hex 32`), masked and scoped to the environment splintercat-results, and set the same value in each clone's environment",
    );
    // check-report, not the script, takes the job token out of the check's environment (with
    // CI_REPOSITORY_URL, which holds it): the script leaves it for check-report to know.
    expect(job.script.join('\n')).not.toMatch(/(^|[(;\s])unset /m);
    expect(job.environment).toBeUndefined();
    expect(report.environment.name).toBe('splintercat-results');
    // No script line names the token: GitLab prints each line it runs.
    expect(
      job.script.filter((l: string) => l.includes('SPLINTERCAT_PUSH_TOKEN}') || l.includes('$SPLINTERCAT_PUSH_TOKEN')),
    ).toEqual([]);
    const text = readFileSync(join(dir, 'splintercat.yaml'), 'utf8');
    expect(text).toContain('# my fork');
    expect(text).toContain('# the suite');
    expect(parse(text).check).toMatchObject({
      commands: { test: 'make test' },
      runner: { remote: 'ci', trigger: 'branch', job_files: { '.gitlab-ci.yml': '.splintercat/ci/gitlab-ci.yml' } },
    });
    // Again: the file is there, so init refuses unless forced.
    const again = await runCli(['init', '--ci', 'gitlab'], dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists');
    // A passthrough naming the push token is refused: the check never gets it.
    const other = tempDir();
    writeFileSync(join(other, 'splintercat.yaml'), 'check:\n  env_passthrough: [SPLINTERCAT_PUSH_TOKEN]\n');
    const refused = await runCli(['init', '--ci', 'github'], other);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("check.env_passthrough names 'SPLINTERCAT_PUSH_TOKEN'");
  });

  it('over a file an earlier version wrote: the renamed check.runner.jobs is replaced by job_files', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'splintercat.yaml'),
      "check:\n  runner:\n    remote: origin\n    jobs: { '.gitlab-ci.yml': .splintercat/ci/gitlab-ci.yml }\n",
    );
    const run = await runCli(['init', '--ci', 'gitlab'], dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const runner = parse(readFileSync(join(dir, 'splintercat.yaml'), 'utf8')).check.runner;
    expect(runner).toEqual({
      remote: 'origin',
      trigger: 'branch',
      job_files: { '.gitlab-ci.yml': '.splintercat/ci/gitlab-ci.yml' },
    });
  });

  it('hook: an executable post-receive and job; an unknown CI is a usage error', async () => {
    const dir = tempDir();
    const run = await runCli(['init', '--ci', 'hook', '--out', 'hooks'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('cp hooks/post-receive hooks/splintercat-check-job /path/to/repo.git/hooks/');
    for (const f of ['hooks/post-receive', 'hooks/splintercat-check-job'])
      expect(statSync(join(dir, f)).mode & 0o111).not.toBe(0);
    // The job runs this very splintercat, its checks in bubblewrap, its result signed with a new
    // key that only check-report gets; the job file holding it is the owner's alone.
    const job = readFileSync(join(dir, 'hooks/splintercat-check-job'), 'utf8');
    expect(job).toContain('src/cli/main.ts');
    const key = /export SPLINTERCAT_RESULT_KEY=([0-9a-f]{64})$/m.exec(run.stdout)?.[1] as string;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(job).toMatch(
      new RegExp(
        `^\\(SPLINTERCAT_RESULT_KEY='${key}'; export SPLINTERCAT_RESULT_KEY; splintercat check-report .* --sandbox bwrap\\)$`,
        'm',
      ),
    );
    expect(job.split(key).length).toBe(2);
    expect(statSync(join(dir, 'hooks/splintercat-check-job')).mode & 0o777).toBe(0o700);
    expect(run.stdout).toContain('Set it in the environment of each clone of the team');
    // With a bare repository on this machine behind the remote, the copy names its hooks directory.
    const repo = TestRepo.create();
    repo.commit('base', { 'README.md': 'x\n' });
    const bare = join(tempDir(), 'fork.git');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    repo.sh('remote', 'add', 'ci', bare);
    const local = await runCli(['init', '--ci', 'hook', '--remote', 'ci', '--out', 'hooks'], repo.dir);
    expect(local.stdout).toContain(`cp hooks/post-receive hooks/splintercat-check-job ${join(bare, 'hooks')}/`);
    // Each init makes a key of its own.
    expect(local.stdout).toMatch(/export SPLINTERCAT_RESULT_KEY=[0-9a-f]{64}$/m);
    expect(local.stdout).not.toContain(key);
    // The job file holding the key is kept out of the repository's commits.
    expect(readFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'utf8').split('\n')).toContain('/hooks/');
    expect(repo.sh('status', '--porcelain', '--untracked-files=all')).not.toMatch(/hooks\//);
    // A command that says how to sandbox is left as it is.
    const off = await runCli(['init', '--ci', 'hook', '--out', 'h2', '--command', 'splintercat --sandbox off'], dir);
    expect(off.code).toBe(0);
    expect(readFileSync(join(dir, 'h2/splintercat-check-job'), 'utf8')).not.toContain('--sandbox bwrap');
    const bad = await runCli(['init', '--ci', 'jenkins'], tempDir());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Use one of: github, gitlab, hook');
    expect(existsSync(join(dir, 'splintercat.yaml'))).toBe(true);
  });
});
