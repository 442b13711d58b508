import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.js';
import type { CheckResult, CheckRunnerLike, RunCheckOptions } from '../../src/checks/types.js';
import { nullLogger } from '../../src/log/logger.js';
import { RunStore } from '../../src/store/index.js';
import { openRunJournal } from '../../src/store/run-persistence.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { createRunDeps } from '../../src/workflow/run-deps.js';
import { keepBothGateway } from '../../bench/_workflow-drive.js';
import { ShellCheckRunner } from '../fixtures/agents/shell-check-runner.js';
import { startChainRun } from '../fixtures/workflow/chain-run.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * Twelve conflicts in twelve files, on the diagonal of the grid (fork commit k and upstream
 * commit k both change file k): a plain merge of the tips expects all twelve.
 */
function diagonalRepo(n: number): TestRepo {
  const repo = TestRepo.create();
  const files = (v: (k: number) => string): Record<string, string> =>
    Object.fromEntries(Array.from({ length: n }, (_, k) => [`f${k + 1}.txt`, `${v(k + 1)}\n`]));
  repo.commit(
    'base',
    files((k) => `base ${k}`),
  );
  repo.branch('upstream');
  for (let k = 1; k <= n; k++) repo.commit(`fork: file ${k}`, { [`f${k}.txt`]: `fork ${k}\n` });
  repo.checkout('upstream');
  for (let k = 1; k <= n; k++) repo.commit(`upstream: file ${k}`, { [`f${k}.txt`]: `upstream ${k}\n` });
  repo.checkout('main');
  return repo;
}

/**
 * The real check, reported as lasting what a large project's would: ten minutes on a tip (a
 * clean build, in a side's own worktree), one second on a cell (an incremental one).
 */
class IncrementalCosts implements CheckRunnerLike {
  constructor(private readonly inner: ShellCheckRunner) {}
  names(): string[] {
    return this.inner.names();
  }
  async run(name: string, options: RunCheckOptions = {}): Promise<CheckResult> {
    const result = await this.inner.run(name, options);
    const tip = basename(options.cwd ?? '').startsWith('check-');
    return { ...result, durationMs: tip ? 600_000 : 1_000 };
  }
}

async function merge(strategy: string, batchSize = 10) {
  const repo = diagonalRepo(12);
  const config = configSchema.parse({
    target: { workdir: repo.dir, branch: 'main' },
    check: { commands: { build: 'true' }, workflow: ['build'] },
    llm: { provider: 'openai-compatible', resolver_model: 'keep-both' },
    merge: { strategy, parallel: 1, default_batch_size: batchSize },
  });
  config.log.dir = join(repo.dir, '.git', 'check-logs');
  const checks = new IncrementalCosts(new ShellCheckRunner(config.check.commands, repo.dir, config.log.dir));
  const ctx = await createRunDeps(config, repo.git, 'up', { checks, gateway: keepBothGateway(), log: nullLogger });
  const store = await RunStore.forRepo(repo.git);
  const { run, state } = startChainRun(store, repo);
  try {
    const outcome = await driveRun(run, state, ctx);
    const events = openRunJournal(store.paths('up')).read().entries;
    const strategies = events.flatMap((e) => (e.type === 'decision' && e.kind === 'strategy' ? [e] : []));
    return { outcome, state: outcome.state, strategies };
  } finally {
    run.close();
  }
}

describe('the planner predicts again from the checks it measured', () => {
  it('a choice made from the tips (clean builds) is remade from the cells checked: batches give way to per-conflict checks', async () => {
    const { outcome, state, strategies } = await merge('auto');
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    // From the tips, a check costs ten minutes: checking two resolutions at a time saves more than the margin.
    expect(strategies[0]).toMatchObject({ decision: 'batch', batchSize: 2, by: 'fallback' });
    // Three cell checks later a check costs a second: each resolution on its own costs less than the margin more.
    expect(strategies[1]?.decision).toBe('per_conflict');
    expect(strategies[1]?.reasoning).toMatch(
      /^measured on 3 cell check\(s\), 0 of 6 resolution\(s\) redone, 6 conflict\(s\) left; checks to the end predicted \d+ s for per_conflict against \d+ s for batch\(2\): .*per_conflict/,
    );
    expect(strategies).toHaveLength(2);
    expect(state.strategy).toMatchObject({ kind: 'per_conflict', batchSize: null, decidedBy: 'fallback' });
    // Resolutions were checked two at a time, then one at a time.
    const cellChecks = state.checks.filter((c) => c.target === 'cell' && c.cell !== null);
    expect(cellChecks.map((c) => `${c.cell?.i1}-${c.cell?.i2}`)).toEqual([
      '2-2',
      '4-4',
      '6-6',
      '7-7',
      '8-8',
      '9-9',
      '10-10',
      '11-11',
      '12-12',
    ]);
    // The prediction is the time spent so far plus the time to come, for all twelve conflicts.
    const prediction = state.strategy?.prediction;
    expect(prediction?.conflicts).toBe(12);
    // The prediction is the strategy's the run uses now, not the one it switched from.
    expect(prediction?.strategy).toBe('per_conflict');
    const spentAtReplan = 2 * 600_000 + 3 * 1_000;
    expect(prediction?.ms).toBeGreaterThan(spentAtReplan);
    expect(prediction?.ms).toBeLessThan(spentAtReplan + 60_000);
    expect(prediction?.checkMs).toBe(1_000);
  });

  it('a strategy the user set is never changed, but its prediction is made again from what was measured', async () => {
    const { outcome, state, strategies } = await merge('batch', 2);
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(strategies.map((s) => s.decision)).toEqual(['batch']);
    expect(state.strategy).toMatchObject({ kind: 'batch', batchSize: 2, decidedBy: 'person' });
    expect(state.strategy?.prediction?.checkMs).toBe(1_000);
  });
});
