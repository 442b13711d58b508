import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

/** A repository whose splintercat.yaml is `yaml`, with one check that would pass. */
function repoWith(yaml: string): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'a.txt': 'a\n' });
  writeFileSync(join(repo.dir, 'splintercat.yaml'), `check:\n  sandbox: off\n  commands:\n    build: 'true'\n${yaml}`);
  return repo;
}

describe('an old spelling of a key is refused with the new key, never ignored', () => {
  it('in the file: every old key at once, each with its new name (or what to do), its line and the fix', async () => {
    const repo = repoWith(
      [
        'merge:',
        '  max_retries: 3',
        '  strategies_available: [batch]',
        '  jobs: 2',
        'imerge:',
        '  goal: merge',
        'source:',
        '  ref: upstream/main',
        '',
      ].join('\n'),
    );
    const result = await runCli(['check', 'build'], repo.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid configuration');
    expect(result.stderr).toMatch(
      /merge\.max_retries: renamed to merge\.max_recoveries: it counts recoveries after failed checks.*splintercat\.yaml:6/,
    );
    expect(result.stderr).toContain('merge.strategies_available: renamed to merge.available_strategies');
    expect(result.stderr).toContain('merge.jobs: renamed to imerge.jobs');
    expect(result.stderr).toContain('imerge.goal: removed');
    expect(result.stderr).toContain('splintercat imerge start --goal GOAL');
    expect(result.stderr).toContain('source.ref: removed');
    // Said once each, not again as an unknown key.
    expect(result.stderr).not.toContain('unknown key');
  });

  it('in --set and in a SPLINTERCAT_ variable, as in the file', async () => {
    const repo = repoWith('');
    const set = await runCli(['--set', 'check.output_dir=/tmp/x', 'check', 'build'], repo.dir);
    expect(set.code).toBe(2);
    expect(set.stderr).toContain('check.output_dir: renamed to log.dir');
    const env = await runCli(['check', 'build'], repo.dir, { SPLINTERCAT_MERGE__MAX_RETRIES: '1' });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('merge.max_retries: renamed to merge.max_recoveries');
    // The new spellings are taken.
    const ok = await runCli(
      ['--set', 'merge.max_recoveries=1', '--set', 'check.runner.job_files={}', 'check', 'build'],
      repo.dir,
    );
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('check.runner.jobs is refused for check.runner.job_files', async () => {
    const repo = repoWith('');
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      "check:\n  commands:\n    build: 'true'\n  runner:\n    jobs:\n      .gitlab-ci.yml: ci.yml\n",
    );
    const result = await runCli(['check', 'build'], repo.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('check.runner.jobs: renamed to check.runner.job_files');
  });

  it('merge --goal is not offered; a script passing another goal is refused', async () => {
    const repo = repoWith('');
    const help = await runCli(['merge', '--help'], repo.dir);
    expect(help.stdout).toContain('--strategy');
    expect(help.stdout).not.toContain('--goal');
    const refused = await runCli(['merge', 'main', '--goal', 'rebase'], repo.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Allowed choices are merge');
  });
});
