import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.js';
import { nullLogger } from '../../src/log/logger.js';
import { RunStore } from '../../src/store/index.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { createRunDeps } from '../../src/workflow/run-deps.js';
import { chainRepo, fixedPlanner, valueResolver, valuesFile } from '../fixtures/workflow/chain-repo.js';
import { scriptedGateway, startChainRun } from '../fixtures/workflow/chain-run.js';
import { CiRemote } from '../helpers/ci-remote.js';

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
    const { run, state } = startChainRun(store, repo);
    let outcome;
    try {
      outcome = await driveRun(run, state, ctx);
    } finally {
      run.close();
    }
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
});
