import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.js';
import { nullLogger } from '../../src/log/logger.js';
import { RunStore } from '../../src/store/index.js';
import type { RunEvent } from '../../src/store/run-events.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { createRunDeps } from '../../src/workflow/run-deps.js';
import { reopenRun } from '../../src/workflow/setup.js';
import { chainRepo, fixedPlanner, valueResolver, valuesFile } from '../fixtures/workflow/chain-repo.js';
import { scriptedGateway, startChainRun } from '../fixtures/workflow/chain-run.js';
import { CiRemote } from '../helpers/ci-remote.js';
import { tempDir, type TestRepo } from '../helpers/git-repo.js';

/** A build on the runners that runs check.mjs, on a commit with no resolution (a tip) once `gate` exists (at most 30 s). */
function gatedConfig(repo: TestRepo, gate: string, llm: Record<string, unknown>) {
  return configSchema.parse({
    target: { workdir: repo.dir, branch: 'main' },
    check: {
      commands: {
        build: `grep -q merged vals.txt || { n=0; while [ ! -e ${gate} ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done; }; node check.mjs`,
      },
      workflow: ['build'],
      timeout: 120,
      runner: { remote: 'origin', parallel: 4, poll: 0.1 },
    },
    llm,
    merge: { strategy: 'per_conflict', parallel: 1 },
  });
}

function journal(repo: TestRepo): RunEvent[] {
  const text = readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RunEvent);
}

/** One drive of run `up`: started, or continued from where it stopped (as `continue`); the run closed after. */
async function drive(
  store: RunStore,
  repo: TestRepo,
  ctx: Awaited<ReturnType<typeof createRunDeps>>,
  signal?: AbortSignal,
): ReturnType<typeof driveRun> {
  const { run, state } = store.exists('up') ? reopenRun(store, 'up') : startChainRun(store, repo);
  const running = state.status === 'running' ? state : { ...state, status: 'running' as const, statusReason: null };
  try {
    return await driveRun(run, running, ctx, signal ? { signal } : {});
  } finally {
    run.close();
  }
}

/** How many jobs the hook started for each request ref. */
function jobsPerRequest(remote: CiRemote): number[] {
  const counts = new Map<string, number>();
  for (const m of remote.log().matchAll(/^splintercat-check-job: (\S+) \(pid/gm))
    counts.set(m[1] as string, (counts.get(m[1] as string) ?? 0) + 1);
  return [...counts.values()];
}

describe('a merge whose checks run on CI runners (check.runner.remote)', () => {
  it('bisect runs its probes in parallel on the runners, isolates the bad resolution, and the merge lands', async () => {
    const repo = chainRepo(
      8,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const remote = CiRemote.attach(repo);
    const resolver = valueResolver((k, retry) => (k === 5 && !retry ? 'BAD' : `merged${k}`));
    const planner = fixedPlanner({ decision: 'bisect', reasoning: 'unclear which resolution broke the build' });
    const gateway = scriptedGateway({ resolver: resolver.model, planner });
    const config = configSchema.parse({
      target: { workdir: repo.dir, branch: 'main' },
      check: {
        commands: { build: 'node check.mjs' },
        workflow: ['build'],
        timeout: 120,
        runner: { remote: 'origin', parallel: 4, poll: 0.1 },
      },
      llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
      merge: { strategy: 'optimistic', parallel: 1 },
    });
    const ctx = await createRunDeps(config, repo.git, 'up', { gateway, log: nullLogger });
    expect(ctx.checks).toMatchObject({ remote: true, parallel: 4 });
    const store = await RunStore.forRepo(repo.git);
    const outcome = await drive(store, repo, ctx);
    await remote.jobsDone();
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(
      valuesFile(Array.from({ length: 8 }, (_, i) => `merged${i + 1}`)).trimEnd(),
    );
    const final = outcome.state;
    expect(final.attempts[0]?.recovery?.decision).toBe('bisect');
    expect(final.conflicts.find((c) => c.id === '5-5')?.attempts).toBe(2);
    // Bisect's probes went out together: at some point several jobs ran at once.
    let running = 0;
    let widest = 0;
    for (const line of remote.log().split('\n')) {
      if (/\(pid \d+\)$/.test(line)) running++;
      if (/ done \(\d+\)$/.test(line)) running--;
      widest = Math.max(widest, running);
    }
    expect(widest).toBeGreaterThanOrEqual(2);
    // The two tips' checks, the run's first, went out together: both started before either was done.
    const lines = remote.log().split('\n');
    const firstDone = lines.findIndex((line) => / done \(\d+\)$/.test(line));
    expect(lines.slice(0, firstDone).filter((line) => /\(pid \d+\)$/.test(line)).length).toBeGreaterThanOrEqual(2);
    // Every check of the run is a result on the remote, read back and recorded with its commit.
    const results = remote.refs('refs/splintercat/up/checks/').filter((r) => r.endsWith('/result'));
    expect(results.length).toBeGreaterThan(0);
    expect(final.checks.every((c) => c.commit !== null)).toBe(true);
  }, 240_000);

  it('the tips are checked alongside the first conflict: it is resolved and checked before their checks end', async () => {
    const repo = chainRepo(
      2,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const remote = CiRemote.attach(repo, { sandbox: 'off' });
    const gate = join(tempDir(), 'open');
    // The tips' checks wait for the gate, which the second resolution opens: the first conflict is
    // resolved and checked while they run.
    const resolver = valueResolver((k) => {
      if (k === 2) writeFileSync(gate, '');
      return `merged${k}`;
    });
    const gateway = scriptedGateway({ resolver: resolver.model });
    const config = gatedConfig(repo, gate, { resolver_model: 'value-resolver' });
    const ctx = await createRunDeps(config, repo.git, 'up', { gateway, log: nullLogger });
    const store = await RunStore.forRepo(repo.git);
    const outcome = await drive(store, repo, ctx);
    await remote.jobsDone();
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2']).trimEnd());
    const events = journal(repo);
    const firstChecked = events.findIndex((e) => e.type === 'check_finished' && e.check.target === 'cell');
    const tipsDone = events.filter((e) => e.type === 'check_finished' && e.check.target.startsWith('baseline'));
    expect(tipsDone).toHaveLength(2);
    expect(firstChecked).toBeGreaterThan(-1);
    expect(tipsDone.every((e) => events.indexOf(e) > firstChecked)).toBe(true);
    // Both tips are the run's baselines, recorded once, and every request ran one job.
    const final = outcome.state;
    expect(final.baselines.map((b) => [b.side, b.check, b.outcome.passed])).toEqual([
      ['fork', 'build', true],
      ['upstream', 'build', true],
    ]);
    expect(final.checks.filter((c) => c.target.startsWith('baseline'))).toHaveLength(2);
    expect(jobsPerRequest(remote).every((n) => n === 1)).toBe(true);
  }, 240_000);

  it('a hand-off while the tips are checked leaves their requests; continue waits on those jobs', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const remote = CiRemote.attach(repo, { sandbox: 'off' });
    const gate = join(tempDir(), 'open');
    // No model: the conflict goes to a person at once, while the tips' checks wait for the gate.
    const config = gatedConfig(repo, gate, {});
    const ctx = await createRunDeps(config, repo.git, 'up', { gateway: null, log: nullLogger });
    const store = await RunStore.forRepo(repo.git);
    const first = await drive(store, repo, ctx);
    expect(first.kind === 'failed' ? first.reason : first.kind).toBe('needs_person');
    expect(existsSync(gate)).toBe(false);
    const requests = (): string[] => remote.refs().filter((ref) => ref.endsWith('/request'));
    expect(requests()).toHaveLength(2);
    // The person settles the conflict while the runners still work on the tips.
    const worktree = first.state.handoff?.conflicts[0]?.worktree as string;
    writeFileSync(join(worktree, 'vals.txt'), valuesFile(['merged']));
    writeFileSync(gate, '');
    const second = await drive(store, repo, ctx);
    await remote.jobsDone();
    expect(second.kind === 'failed' ? second.reason : second.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged']).trimEnd());
    expect(second.state.baselines.map((b) => b.side)).toEqual(['fork', 'upstream']);
    // The tips' jobs ran once each: the second process waited on the requests the first left.
    expect(jobsPerRequest(remote)).toEqual([1, 1, 1]);
    expect(requests()).toEqual([]);
  }, 240_000);

  it('Ctrl-C while the tips are checked records no baseline; the next drive checks them again', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const remote = CiRemote.attach(repo, { sandbox: 'off' });
    const gate = join(tempDir(), 'open');
    const stop = new AbortController();
    // The person presses Ctrl-C while the conflict is being resolved and the tips' jobs wait for the gate.
    const resolver = valueResolver(() => {
      stop.abort();
      return 'merged';
    });
    const gateway = scriptedGateway({ resolver: resolver.model });
    const ctx = await createRunDeps(gatedConfig(repo, gate, { resolver_model: 'value-resolver' }), repo.git, 'up', {
      gateway,
      log: nullLogger,
    });
    const store = await RunStore.forRepo(repo.git);
    const first = await drive(store, repo, ctx, stop.signal);
    expect(first.kind).toBe('stopped');
    // A cancelled check is no outcome: nothing stands for the tips' baselines in the journal.
    expect(journal(repo).filter((e) => e.type === 'effect' && e.key.startsWith('baseline:'))).toEqual([]);
    writeFileSync(gate, '');
    const second = await drive(store, repo, ctx);
    await remote.jobsDone();
    expect(second.kind === 'failed' ? second.reason : second.kind).toBe('done');
    expect(second.state.baselines.map((b) => [b.side, b.outcome.passed])).toEqual([
      ['fork', true],
      ['upstream', true],
    ]);
  }, 240_000);
});
