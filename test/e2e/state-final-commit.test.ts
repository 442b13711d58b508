import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { chainRepo } from '../fixtures/workflow/chain-repo.js';
import type { TestRepo } from '../helpers/git-repo.js';

/** A finished merge (rules alone) whose state.json then names `finalCommit`. */
async function finishedThenEdited(
  finalCommit: (repo: TestRepo) => string,
): Promise<{ repo: TestRepo; real: string; stateFile: string }> {
  const repo = chainRepo(
    1,
    () => '1  ',
    () => '1',
  );
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    ['target:', '  branch: main', 'imerge:', '  name: up', ''].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
  expect((await runCli(['merge', 'upstream'], repo.dir)).code).toBe(0);
  const stateFile = join(repo.dir, '.git', 'splintercat', 'up', 'state.json');
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { status: string; finalCommit: string };
  expect(state.status).toBe('done');
  writeFileSync(stateFile, JSON.stringify({ ...state, finalCommit: finalCommit(repo) }));
  return { repo, real: state.finalCommit, stateFile };
}

async function expectRefused(repo: TestRepo, pattern: RegExp): Promise<void> {
  for (const args of [['status'], ['status', '--json'], ['continue']]) {
    const run = await runCli(args, repo.dir);
    expect(run.code, args.join(' ')).toBe(1);
    expect(run.stderr).toMatch(pattern);
    expect(run.stderr).toMatch(/cannot be trusted/);
    expect(run.stderr).toMatch(/splintercat doctor --rebuild --name up/);
    expect(run.stdout).not.toMatch(/done|already finished/);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  }
  const doctor = await runCli(['doctor', '--name', 'up'], repo.dir);
  expect(doctor.code).toBe(1);
  expect(doctor.stdout + doctor.stderr).toMatch(pattern);
  expect(doctor.stdout + doctor.stderr).not.toMatch(/healthy/);
}

describe('a state that says done must name the merge it finished', () => {
  it('final commit 000…: status, continue and doctor refuse it; doctor --rebuild restores the real one from the journal', async () => {
    const { repo, real } = await finishedThenEdited(() => '0'.repeat(40));
    await expectRefused(repo, /the final commit 0{40} is not in the repository/);
    const rebuild = await runCli(['doctor', '--name', 'up', '--rebuild'], repo.dir);
    expect(rebuild.code).toBe(0);
    expect(JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout)).toMatchObject({
      status: 'done',
      finalCommit: real,
    });
  });

  it('a commit that exists but is not the two-parent merge of the tips (the upstream tip) is refused the same way', async () => {
    const { repo } = await finishedThenEdited((r) => r.sh('rev-parse', 'upstream'));
    await expectRefused(repo, /is not the two-parent merge of the run's tips/);
  });

  it('a real finished run is accepted by status, continue and doctor', async () => {
    const repo = chainRepo(
      2,
      (k) => `${k}  `,
      (k) => `${k}`,
    );
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      ['target:', '  branch: main', 'imerge:', '  name: up', ''].join('\n'),
    );
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    expect((await runCli(['merge', 'upstream'], repo.dir)).code).toBe(0);
    expect(JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout)).toMatchObject({
      status: 'done',
      finalCommit: repo.sh('rev-parse', 'main'),
    });
    expect((await runCli(['continue'], repo.dir)).stdout).toMatch(/already finished/);
    expect((await runCli(['doctor', '--name', 'up'], repo.dir)).code).toBe(0);
  });

  it('a tree, not a commit, is refused', async () => {
    const { repo } = await finishedThenEdited((r) => r.sh('rev-parse', 'main^{tree}'));
    await expectRefused(repo, /is a tree, not a commit/);
  });
});
