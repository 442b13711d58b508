import { readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredConfig } from '../../src/config/index.js';
import { configFor } from '../../src/workflow/config-for.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { buildRunFixture, type RunFixture } from '../fixtures/store/run-fixture.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';

const SRC = join(import.meta.dirname, '../../src');

/** A repository holding a run (`up`) whose state stores the configuration `merge` gave it from `yaml`. */
async function runWithStored(yaml: string): Promise<{ f: RunFixture; stored: StoredConfig }> {
  const f = await buildRunFixture(TestRepo.create());
  writeFileSync(join(f.repo.dir, 'splintercat.yaml'), yaml);
  const { stored } = await configFor.newMerge({ cwd: f.repo.dir, sets: [], env: {} });
  f.save({ ...f.state, config: stored });
  return { f, stored };
}

function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesOf(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('configFor, case 1: a new merge', () => {
  it("reads the main checkout's file from a linked worktree, then the environment, --set and the flags; stores that", async () => {
    const repo = TestRepo.create();
    repo.commit('config', { 'splintercat.yaml': 'check:\n  commands:\n    build: make\nmerge:\n  strategy: batch\n' });
    const linked = join(tempDir(), 'linked');
    repo.sh('worktree', 'add', '-q', '--detach', linked);
    writeFileSync(join(linked, 'splintercat.yaml'), 'check:\n  commands:\n    build: not-the-persons\n');

    const { config, stored } = await configFor.newMerge(
      { cwd: linked, sets: ['check.timeout=30'], env: { SPLINTERCAT_MERGE__PARALLEL: '2' } },
      { strategy: 'per_conflict', firstParent: false },
    );
    expect(realpathSync(config.target.workdir)).toBe(realpathSync(repo.dir));
    expect(config.check.commands.build).toBe('make');
    expect([config.check.timeout, config.merge.parallel]).toEqual([30, 2]);
    expect([config.merge.strategy, config.imerge.first_parent]).toEqual(['per_conflict', false]);
    // What the run stores is what it runs with, flags included: `continue` uses them too.
    expect(stored.values).toMatchObject({
      merge: { strategy: 'per_conflict', parallel: 2 },
      imerge: { first_parent: false },
    });
    expect(stored.sets).toEqual(['check.timeout=30']);
  });
});

describe('configFor, case 2: an existing run', () => {
  it("uses the run's stored configuration, not a later edit of the file; --set goes on top and is stored; the edit is a notice", async () => {
    const { f } = await runWithStored('check:\n  commands:\n    build: make one\n');
    writeFileSync(join(f.repo.dir, 'splintercat.yaml'), 'check:\n  commands:\n    build: make edited\n');
    const notices: string[] = [];
    const opened = await configFor.run({
      cwd: f.repo.dir,
      sets: ['check.timeout=9'],
      env: {},
      notify: (n) => notices.push(n),
      runRequired: true,
      configRequired: true,
    });
    opened.git.close();
    expect(opened.name).toBe('up');
    expect(opened.config.check.commands.build).toBe('make one');
    expect(opened.config.check.timeout).toBe(9);
    expect(opened.stored?.sets).toEqual(['check.timeout=9']);
    expect(notices.join('\n')).toContain('check.commands.build');
  });

  it('reads a configuration an earlier version stored, with its old key names, as the new keys', async () => {
    const { f, stored } = await runWithStored('merge:\n  max_recoveries: 2\n');
    // The values as the earlier version wrote them.
    const values = structuredClone(stored.values) as Record<string, Record<string, unknown>>;
    const merge = values.merge as Record<string, unknown>;
    const check = values.check as Record<string, unknown> & { runner: Record<string, unknown> };
    merge.max_retries = merge.max_recoveries;
    merge.strategies_available = ['batch'];
    merge.jobs = 3;
    check.runner.jobs = { '.gitlab-ci.yml': 'ci.yml' };
    check.output_dir = (values.log as Record<string, unknown>).dir;
    for (const key of ['max_recoveries', 'available_strategies']) delete merge[key];
    delete check.runner.job_files;
    delete (values.imerge as Record<string, unknown>).jobs;
    values.imerge = { ...values.imerge, goal: 'merge' };
    values.source = { ref: '' };
    f.save({
      ...f.state,
      config: { ...stored, values: values as StoredConfig['values'], sets: ['merge.max_retries=2'] },
    });

    const opened = await configFor.run({ cwd: f.repo.dir, sets: [], env: {}, runRequired: true, configRequired: true });
    opened.git.close();
    expect(opened.config.merge).toMatchObject({ max_recoveries: 2, available_strategies: ['batch'] });
    expect(opened.config.imerge.jobs).toBe(3);
    expect(opened.config.check.runner.job_files).toEqual({ '.gitlab-ci.yml': 'ci.yml' });
    // Stored from now on as this version spells it.
    expect(opened.stored?.sets).toEqual(['merge.max_recoveries=2']);
    expect(opened.stored?.values).not.toHaveProperty('source');
    expect(opened.stored?.values.merge).not.toHaveProperty('max_retries');
    // What abort and doctor read of the run: the same.
    const own = await configFor.storedRun(opened.state, f.store);
    expect(own?.merge.max_recoveries).toBe(2);
  });
});

describe('configFor, case 3: a command inside a merge, or the merge driver', () => {
  it("check, from a worktree of the run, runs the run's stored command, not a later edit of the checkout's file", async () => {
    const { f } = await runWithStored('check:\n  sandbox: off\n  commands:\n    build: echo stored-build\n');
    writeFileSync(
      join(f.repo.dir, 'splintercat.yaml'),
      'check:\n  sandbox: off\n  commands:\n    build: echo edited-build\n',
    );
    const linked = join(tempDir(), 'handoff');
    f.repo.sh('worktree', 'add', '-q', '--detach', linked);

    const result = await runCli(['check', 'build'], linked);
    expect(result.code, result.stderr).toBe(0);
    const log = readFileSync(/Log: (\S+)/.exec(result.stdout)?.[1] ?? '', 'utf8');
    expect(log).toContain('stored-build');
    expect(log).not.toContain('edited-build');
    expect(result.stderr).toContain('now gives another configuration');
  });

  it('the driver and resolve read the file as the checkout had it before the merge in progress, never the merged one', async () => {
    const repo = TestRepo.create();
    repo.commit('config', { 'splintercat.yaml': 'llm:\n  base_url: http://mine.example\n', 'a.txt': 'a\n' });
    repo.branch('upstream');
    repo.commit('fork', { 'a.txt': 'fork\n' });
    repo.checkout('upstream');
    repo.commit('upstream', { 'splintercat.yaml': 'llm:\n  base_url: http://theirs.example\n', 'a.txt': 'up\n' });
    repo.checkout('main');
    await repo.git.run(['merge', '--no-edit', 'upstream'], { okExitCodes: [0, 1] });
    expect(readFileSync(join(repo.dir, 'splintercat.yaml'), 'utf8')).toContain('theirs');

    for (const situation of [{}, { driver: true }]) {
      const { config } = await configFor.inMerge({ cwd: repo.dir, sets: [], env: {} }, situation);
      expect(config.llm.base_url).toBe('http://mine.example');
    }
    // No merge in progress: the person's file as it is.
    repo.sh('merge', '--abort');
    writeFileSync(join(repo.dir, 'splintercat.yaml'), 'llm:\n  base_url: http://edited.example\n');
    expect((await configFor.inMerge({ cwd: repo.dir, sets: [], env: {} })).config.llm.base_url).toBe(
      'http://edited.example',
    );
  });
});

describe('one way to load configuration', () => {
  it('no file of src/ but the resolver loads, stores or reads back a configuration itself', () => {
    const primitives = /\b(loadConfig|storeConfig|configFromStored|configBeforeMerge)\b/;
    const own = new Set([
      'workflow/config-for.ts',
      'workflow/checkout-config.ts',
      'config/load.ts',
      'config/stored-config.ts',
    ]);
    const users = filesOf(SRC)
      .filter((file) => !file.endsWith('.test.ts') && !own.has(relative(SRC, file)))
      .filter((file) => primitives.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(users).toEqual([]);
  });
});
