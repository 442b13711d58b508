import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, type TestRepo } from '../helpers/git-repo.js';
import { runCli, type CliRun } from '../fixtures/resolve/cli.js';
import { chainRepo, valuesFile, writeChainConfig } from '../fixtures/workflow/chain-repo.js';

/**
 * The fork maintainer's journey (issue 11): the hand-off followed to the letter, from the
 * conflict's worktree; the run's own configuration from anywhere; a second `merge` of the
 * same name; a machine with no git identity.
 */

/** An untracked splintercat.yaml in the main checkout, as a maintainer keeps it. */
function configure(repo: TestRepo, lines: string[] = []): void {
  writeChainConfig(repo.dir, lines);
}

/** The directory of the printed `cd DIR   # conflict ...` command. */
function handoffDir(run: CliRun): string {
  const dir = /^\s+cd (\S+)\s+# conflict/m.exec(run.stderr)?.[1];
  if (dir === undefined) throw new Error(`no cd command in:\n${run.stderr}`);
  return dir;
}

interface StoredState {
  status: string;
  checks: Array<{ name: string; success: boolean; logFile: string; target: string }>;
  config: {
    values: { check: { commands: Record<string, string>; workflow: string[]; timeout: number } };
    sets: string[];
    file: string;
  } | null;
}

function readState(repo: TestRepo): StoredState {
  return JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8')) as StoredState;
}

/** A check that fails when any directory of its cwd starts with a dot (as some test suites do). */
const guard =
  'check.commands.guard=case "$PWD" in */.*) echo "dot-directory in $PWD"; exit 1;; esac; echo "no dot-directory in $PWD"';

describe('the hand-off followed to the letter (CLI, offline)', () => {
  it('cd into the printed worktree, then continue: the run keeps its configuration and --set, checks run outside .git, logs land in the main checkout, and the main checkout ends clean', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo, ['llm:', '  api_key: ${MY_TEST_API_KEY}']);
    const secret = 'sk-test-secret-0123456789';
    const env = { MY_TEST_API_KEY: secret };
    const first = await runCli(
      ['merge', 'upstream', '--set', guard, '--set', 'check.workflow=[build, guard]'],
      repo.dir,
      env,
    );
    expect(first.code).toBe(3);
    const worktree = handoffDir(first);
    // Outside the repository and with no dot-directory: a sibling of it, per run.
    expect(worktree.startsWith(`${repo.dir}/`)).toBe(false);
    expect(worktree.startsWith(join(dirname(repo.dir), 'repo-splintercat', 'up'))).toBe(true);
    expect(worktree.split('/').filter((part) => part.startsWith('.'))).toEqual([]);
    // The configuration is stored, --set included, and never a secret.
    const stored = readState(repo).config;
    expect(stored).toMatchObject({
      file: join(repo.dir, 'splintercat.yaml'),
      values: { check: { workflow: ['build', 'guard'] } },
    });
    expect(stored?.sets).toHaveLength(2);
    const runDir = join(repo.dir, '.git', 'splintercat', 'up');
    for (const file of readdirSync(runDir))
      if (file.endsWith('.json') || file.endsWith('.jsonl'))
        expect(readFileSync(join(runDir, file), 'utf8')).not.toContain(secret);
    expect(readFileSync(join(runDir, 'state.json'), 'utf8')).toContain('${MY_TEST_API_KEY}');

    // status works from the worktree too.
    const status = await runCli(['status', '--json'], worktree, env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ name: 'up', status: 'needs_person' });

    // check NAME uses the run's configuration too: 'guard' exists only through merge's --set.
    const guarded = await runCli(['check', 'guard', '--json'], worktree, env);
    expect(guarded.code).toBe(0);
    expect(
      (JSON.parse(guarded.stdout) as { logFile: string }).logFile.startsWith(
        join(repo.dir, '.splintercat', 'logs', 'guard-'),
      ),
    ).toBe(true);

    writeFileSync(join(worktree, 'vals.txt'), valuesFile(['both']));
    const second = await runCli(['continue'], worktree, env);
    expect(second.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toMatch(/now gives another configuration/);

    // Both checks ran on the merged tree after the hand-off, in the check worktree, with no dot-directory in its path.
    const state = readState(repo);
    expect(state.status).toBe('done');
    const after = state.checks.slice(-2);
    expect(after.map((c) => [c.name, c.success])).toEqual([
      ['build', true],
      ['guard', true],
    ]);
    for (const check of state.checks) {
      expect(dirname(check.logFile)).toBe(join(repo.dir, '.splintercat', 'logs'));
      expect(existsSync(check.logFile)).toBe(true);
    }
    expect(readFileSync(after[1]?.logFile as string, 'utf8')).toMatch(/no dot-directory in \//);

    // The merge is on main and the main checkout follows it: no stale index undoing the merge.
    const head = repo.sh('rev-parse', 'main');
    expect(repo.sh('rev-list', '--parents', '-n', '1', head).split(' ')).toHaveLength(3);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['both']).trimEnd());
    expect(repo.sh('diff', '--cached', '--name-only')).toBe('');
    expect(repo.sh('status', '--porcelain')).toBe('');
    expect(readFileSync(join(repo.dir, 'vals.txt'), 'utf8')).toBe(valuesFile(['both']));
    // The run's worktrees and their directory are gone.
    expect(existsSync(join(dirname(repo.dir), 'repo-splintercat'))).toBe(false);
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('continue reports a configuration file that changed and keeps the run own; --set on continue applies and is stored', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    const first = await runCli(['merge', 'upstream'], repo.dir);
    expect(first.code).toBe(3);
    const worktree = handoffDir(first);
    // Now the file would fail every check: the run does not take it.
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      readFileSync(join(repo.dir, 'splintercat.yaml'), 'utf8')
        .replace('node check.mjs', 'exit 7')
        .replace('check:\n', 'check:\n  timeout: 77\n'),
    );
    writeFileSync(join(worktree, 'vals.txt'), valuesFile(['both']));
    const second = await runCli(['continue', '--set', 'check.timeout=55'], worktree);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(
      `${join(repo.dir, 'splintercat.yaml')} now gives another configuration than the one this run started with (check.commands.build, check.timeout)`,
    );
    expect(second.stderr).toContain('the run keeps its own');
    const state = readState(repo);
    expect(state.config?.values.check.commands.build).toBe('node check.mjs');
    expect(state.config?.values.check.timeout).toBe(55);
    expect(state.config?.sets).toEqual(['check.timeout=55']);
    expect(state.checks.every((c) => c.success)).toBe(true);
  });

  it("the configuration file gone after merge: continue runs the run's checks all the same, and says so", async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    const first = await runCli(['merge', 'upstream'], repo.dir);
    expect(first.code).toBe(3);
    const before = readState(repo).checks.length;
    rmSync(join(repo.dir, 'splintercat.yaml'));
    writeFileSync(join(handoffDir(first), 'vals.txt'), valuesFile(['both']));
    const second = await runCli(['continue'], handoffDir(first));
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(
      `${join(repo.dir, 'splintercat.yaml')} is not found now; the run keeps the configuration it started with`,
    );
    const after = readState(repo).checks.slice(before);
    expect(after.map((c) => [c.name, c.success])).toEqual([['build', true]]);
    expect(repo.sh('status', '--porcelain')).toBe('');
  });

  it('a run whose state stores no configuration, with no file found, is a clear error and not the defaults', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    const fork = repo.sh('rev-parse', 'main');
    expect((await runCli(['merge', 'upstream'], repo.dir)).code).toBe(3);
    const statePath = join(repo.dir, '.git', 'splintercat', 'up', 'state.json');
    const old = JSON.parse(readFileSync(statePath, 'utf8')) as Record<string, unknown>;
    delete old.config;
    writeFileSync(statePath, JSON.stringify(old));
    rmSync(join(repo.dir, 'splintercat.yaml'));
    const run = await runCli(['continue'], repo.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/stores no configuration, and no splintercat\.yaml was found/);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(repo.sh('rev-parse', 'main')).toBe(fork);
    expect(readState(repo).status).toBe('needs_person');
  });
});

describe('merge on an existing name', () => {
  it('says what exists and offers continue or --restart; --restart drops the old run and starts again; abort from the worktree cleans up', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    expect((await runCli(['merge', 'upstream'], repo.dir)).code).toBe(3);
    const again = await runCli(['merge', 'upstream'], repo.dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/A merge named 'up' already exists: needs_person .*merging upstream into main/);
    expect(again.stderr).toContain('splintercat continue --name up');
    expect(again.stderr).toContain('splintercat merge upstream --restart --name up');
    expect(again.stderr).not.toMatch(/at .*\.ts:\d+/);

    const restarted = await runCli(['merge', 'upstream', '--restart', '--name', 'up'], repo.dir);
    expect(restarted.code).toBe(3);
    const worktree = handoffDir(restarted);
    expect(readFileSync(join(worktree, 'vals.txt'), 'utf8')).toMatch(/^<<<<<<< /m);

    const abort = await runCli(['abort'], worktree);
    expect(abort.code).toBe(0);
    expect(abort.stdout).toMatch(/Aborted 'up'/);
    expect(existsSync(join(dirname(repo.dir), 'repo-splintercat'))).toBe(false);
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(1);
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
  });
});

describe('git identity pre-flight', () => {
  it('with an empty HOME and no global config, merge stops before anything starts and says how to set an identity; with a local one, merge and continue need nothing else', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    repo.sh('config', '--unset', 'user.name');
    repo.sh('config', '--unset', 'user.email');
    const bare = {
      HOME: tempDir('splintercat-home-'),
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: undefined,
      GIT_AUTHOR_EMAIL: undefined,
      GIT_COMMITTER_NAME: undefined,
      GIT_COMMITTER_EMAIL: undefined,
      EMAIL: undefined,
    };
    const run = await runCli(['merge', 'upstream'], repo.dir, bare);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('git has no identity to make commits with');
    expect(run.stderr).toContain('git config user.name "Your Name"');
    expect(run.stderr).toContain('git config user.email you@example.com');
    expect(run.stderr).toContain('--global');
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
    expect(existsSync(join(repo.dir, '.git', 'splintercat', 'up'))).toBe(false);

    repo.sh('config', 'user.name', 'Local Maintainer');
    repo.sh('config', 'user.email', 'local@example.com');
    const first = await runCli(['merge', 'upstream'], repo.dir, bare);
    expect(first.code).toBe(3);
    writeFileSync(join(handoffDir(first), 'vals.txt'), valuesFile(['both']));
    const second = await runCli(['continue'], repo.dir, bare);
    expect(second.code).toBe(0);
    expect(repo.sh('status', '--porcelain')).toBe('');
  });
});

describe('finalize brings forward the checkout that has the target branch', () => {
  it('the target branch checked out in a linked worktree, the merge run from the main checkout on another branch: that worktree ends at the merge, index and files', async () => {
    const repo = chainRepo(
      2,
      () => '1  ',
      () => '1',
    );
    configure(repo);
    const fork = repo.sh('rev-parse', 'main');
    repo.sh('checkout', '-q', '-b', 'elsewhere');
    const linked = join(tempDir('splintercat-linked-'), 'fork');
    repo.sh('worktree', 'add', '-q', linked, 'main');
    const run = await runCli(['merge', 'upstream', '--into', 'main', '--strategy', 'optimistic'], repo.dir);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.code).toBe(0);
    const head = repo.sh('rev-parse', 'main');
    expect(head).not.toBe(fork);
    expect(readFileSync(join(linked, 'vals.txt'), 'utf8')).toBe(valuesFile(['1  ', '1  ']));
    expect(repo.sh('-C', linked, 'status', '--porcelain')).toBe('');
    // The main checkout, on its own branch, is untouched.
    expect(repo.sh('rev-parse', 'HEAD')).toBe(fork);
    expect(repo.sh('status', '--porcelain')).toBe('');
  });
});

describe('doctor and the worktrees outside .git', () => {
  it('names a hand-off worktree removed by hand (exit 1, with the way on) and --repair prunes its registration', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    configure(repo);
    const first = await runCli(['merge', 'upstream'], repo.dir);
    expect(first.code).toBe(3);
    const worktree = handoffDir(first);
    expect((await runCli(['doctor'], worktree)).code).toBe(0);
    rmSync(worktree, { recursive: true, force: true });
    const check = await runCli(['doctor'], repo.dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`the worktree of the hand-off, ${worktree}, does not exist`);
    expect(check.stdout).toContain('splintercat merge upstream --restart');
    expect(check.stdout).toContain(`the worktree ${worktree} is registered in git but its directory is gone`);
    const repair = await runCli(['doctor', '--repair'], repo.dir);
    expect(repair.stdout).toMatch(/pruned the registrations of 1 worktree/);
    expect(repo.sh('worktree', 'list', '--porcelain')).not.toContain(worktree);
  });
});
