import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { buildRunFixture } from '../fixtures/store/run-fixture.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { finishedRun } from '../fixtures/workflow/finished-run.js';

describe('splintercat doctor', () => {
  it('finds a finished run healthy, without warning about the engine refs it removed by design', async () => {
    const repo = await finishedRun();
    expect(repo.sh('for-each-ref', 'refs/imerge/')).toBe('');
    const run = await runCli(['doctor'], repo.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Run 'up' is healthy/);
    expect(run.stdout).not.toMatch(/warning/);
  });

  it('reports a healthy run, exit 0', async () => {
    const repo = TestRepo.create();
    await buildRunFixture(repo, 'up');
    const run = await runCli(['doctor', '--name', 'up'], repo.dir);
    expect(run.stdout).toMatch(/Run 'up' is healthy/);
    expect(run.code).toBe(0);
  });

  it('finds a truncated state file (exit 1) and --repair restores it from the backup', async () => {
    const repo = TestRepo.create();
    const fixture = await buildRunFixture(repo, 'up');
    const text = readFileSync(fixture.paths.state, 'utf8');
    writeFileSync(fixture.paths.state, text.slice(0, Math.floor(text.length / 2)));
    const check = await runCli(['doctor', '--name', 'up'], repo.dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/problems/);
    expect(check.stdout).toMatch(/--repair/);
    const repair = await runCli(['doctor', '--name', 'up', '--repair', '--json'], repo.dir);
    expect(repair.code).toBe(0);
    expect(JSON.parse(repair.stdout)).toMatchObject({ ok: true, restoredFromBackup: true });
    expect(JSON.parse(readFileSync(fixture.paths.state, 'utf8'))).toEqual(JSON.parse(JSON.stringify(fixture.previous)));
    expect((await runCli(['doctor', '--name', 'up'], repo.dir)).code).toBe(0);
  });

  it('checks the grid refs against the state: a deleted edge ref, a stray ref and a garbage state blob are found (exit 1) and --repair restores them', async () => {
    const repo = TestRepo.create();
    const fixture = await buildRunFixture(repo, 'up');
    const fork = repo.sh('rev-parse', 'refs/imerge/up/manual/1-0');
    repo.sh('update-ref', '-d', 'refs/imerge/up/manual/1-0');
    repo.sh('update-ref', 'refs/imerge/up/junk', 'HEAD');
    const garbage = repo.git.run(['hash-object', '-w', '--stdin'], { input: 'not a state\n' });
    repo.sh('update-ref', 'refs/imerge/up/state', (await garbage).stdout.trim());

    const check = await runCli(['doctor', '--name', 'up'], repo.dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/refs\/imerge\/up\/state is not valid JSON/);
    expect(check.stdout).toMatch(/stray ref\(s\).*refs\/imerge\/up\/junk/);
    expect(check.stdout).toMatch(/edge ref\(s\) missing: manual\/1-0/);

    const repair = await runCli(['doctor', '--name', 'up', '--repair'], repo.dir);
    expect(repair.stdout).toMatch(/^Repaired run 'up'/);
    expect(repair.stdout).toMatch(/restored 1 edge ref/);
    expect(repair.stdout).toMatch(/deleted refs\/imerge\/up\/junk/);
    expect(repair.stdout).toMatch(/rewrote refs\/imerge\/up\/state/);
    expect(repair.code).toBe(0);
    expect(repo.sh('rev-parse', 'refs/imerge/up/manual/1-0')).toBe(fork);
    expect(JSON.parse(repo.sh('cat-file', 'blob', 'refs/imerge/up/state'))).toMatchObject({
      goal: 'merge',
      tip1: 'main',
      tip2: 'upstream',
      version: '1.3.0',
    });
    expect((await runCli(['doctor', '--name', 'up'], repo.dir)).stdout).toMatch(/Run 'up' is healthy/);
    expect(fixture.paths.dir).toBeTruthy();
  });

  it('never says "Repaired" when problems remain: it names them and exits 1', async () => {
    const repo = TestRepo.create();
    const fixture = await buildRunFixture(repo, 'up');
    writeFileSync(fixture.paths.state, '{ torn');
    writeFileSync(fixture.paths.backup, '{ torn too');
    const repair = await runCli(['doctor', '--name', 'up', '--repair'], repo.dir);
    expect(repair.code).toBe(1);
    expect(repair.stdout).not.toMatch(/^Repaired/);
    expect(repair.stdout).toMatch(/^Run 'up' is not repaired: \d+ problem\(s\) remain/);
    expect(repair.stdout).toMatch(/--rebuild/);
  });

  it('--rebuild reconstructs a deleted state from the journal and the refs', async () => {
    const repo = TestRepo.create();
    const fixture = await buildRunFixture(repo, 'up');
    rmSync(fixture.paths.state);
    rmSync(fixture.paths.backup, { force: true });
    const rebuild = await runCli(['doctor', '--name', 'up', '--rebuild'], repo.dir);
    expect(rebuild.stdout).toMatch(/Rebuilt run 'up'/);
    expect(rebuild.code).toBe(0);
    const state = JSON.parse(readFileSync(fixture.paths.state, 'utf8')) as {
      name: string;
      strategy: { kind: string } | null;
    };
    expect(state.name).toBe('up');
    expect(state.strategy?.kind).toBe('optimistic');
  });

  it('names the runs that exist when the name is wrong (exit 2, no stack trace)', async () => {
    const repo = TestRepo.create();
    await buildRunFixture(repo, 'up');
    const run = await runCli(['doctor', '--name', 'nope'], repo.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no splintercat run named 'nope'/);
    expect(run.stderr).toMatch(/Runs found: up/);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
