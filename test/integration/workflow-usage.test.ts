import { describe, expect, it } from 'vitest';
import type { ModelGateway } from '../../src/agents/model-gateway.js';
import { RunStore } from '../../src/store/index.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { reopenRun } from '../../src/workflow/setup.js';
import { emptyUsage } from '../../src/store/run-state.js';
import { chainRepo, valueResolver } from '../fixtures/workflow/chain-repo.js';
import { chainContext, scriptedGateway, startChainRun } from '../fixtures/workflow/chain-run.js';
import type { TestRepo } from '../helpers/git-repo.js';

const price = { input: 1000, output: 5000 }; // USD per million tokens: 0.2 USD per call of 100 + 20 tokens

function gateway(budgetUsd = 0): ModelGateway {
  return scriptedGateway(
    { resolver: valueResolver((k) => `F${k}+U${k}`, 'F').model },
    { maxRetries: 0, prices: { 'value-resolver': price }, budgetUsd },
  );
}

async function context(repo: TestRepo, gw: ModelGateway) {
  return (await chainContext(repo, gw, { merge: { strategy: 'optimistic' } })).ctx;
}

describe('model usage across processes of one run', () => {
  it('is journalled per call; a resumed run takes its totals from the journal and its new gateway counts them', async () => {
    const repo = chainRepo(
      2,
      (k) => `F${k}`,
      (k) => `U${k}`,
    );
    const first = gateway();
    const store = await RunStore.forRepo(repo.git);
    const created = startChainRun(store, repo);
    let spent: number;
    try {
      const outcome = await driveRun(created.run, created.state, await context(repo, first));
      expect(outcome.kind).toBe('done');
      spent = first.usage.total().costUsd;
      expect(spent).toBeGreaterThan(0);
      expect(outcome.state.usage.resolver.costUsd).toBeCloseTo(spent, 10);
      const events = created.run.journal.read().entries.filter((e) => e.type === 'model_usage');
      expect(events).toHaveLength(first.usage.records.length);
      // As if a kill had struck after the calls and before the node's state was saved.
      created.run.persistence.save({
        ...outcome.state,
        usage: { resolver: emptyUsage(), reviewer: emptyUsage(), summarizer: emptyUsage(), planner: emptyUsage() },
      });
    } finally {
      created.run.close();
    }

    const second = gateway();
    const reopened = reopenRun(store, 'up');
    try {
      const outcome = await driveRun(reopened.run, reopened.state, await context(repo, second));
      expect(outcome.state.usage.resolver.costUsd).toBeCloseTo(spent, 10);
      expect(outcome.state.usage.resolver.calls).toBe(first.usage.records.length);
      // The new process's budget sees what the first one spent.
      expect(second.usage.total().costUsd).toBeCloseTo(spent, 10);
    } finally {
      reopened.run.close();
    }
  });

  it('budget.usd counts what earlier processes spent: a resumed run stops before exceeding it', async () => {
    const repo = chainRepo(
      3,
      (k) => `F${k}`,
      (k) => `U${k}`,
    );
    const store = await RunStore.forRepo(repo.git);
    const created = startChainRun(store, repo);
    // The first process spends 0.8 USD (two conversations of two calls) and is stopped.
    const first = gateway();
    const controller = new AbortController();
    first.usage.onRecord(() => {
      if (first.usage.records.length === 4) controller.abort();
    });
    try {
      const outcome = await driveRun(created.run, created.state, await context(repo, first), {
        signal: controller.signal,
      });
      expect(outcome.kind).toBe('stopped');
    } finally {
      created.run.close();
    }
    expect(first.usage.total().costUsd).toBeCloseTo(0.8, 10);

    // A budget of 1 USD leaves room for one more call (0.2), not for a whole conversation more than that.
    const second = gateway(1);
    const reopened = reopenRun(store, 'up');
    try {
      const outcome = await driveRun(reopened.run, reopened.state, await context(repo, second));
      expect(outcome.kind).toBe('failed');
      expect(outcome.kind === 'failed' && outcome.retryable).toBe(true);
      expect(outcome.state.statusReason).toMatch(
        /the model budget is spent \(The model budget would be exceeded: spent \$\d\.\d+ of \$1[^)]*\); raise budget\.usd/,
      );
      expect(outcome.state.handoff).toBeNull();
      expect(second.usage.total().costUsd).toBeLessThanOrEqual(1 + 1e-9);
      expect(outcome.state.usage.resolver.costUsd).toBeLessThanOrEqual(1 + 1e-9);
    } finally {
      reopened.run.close();
    }

    // With the budget raised, continue asks the model again and finishes.
    const third = gateway(5);
    const again = reopenRun(store, 'up');
    try {
      const outcome = await driveRun(
        again.run,
        { ...again.state, status: 'running', statusReason: null },
        await context(repo, third),
      );
      expect(outcome.kind).toBe('done');
    } finally {
      again.run.close();
    }
  });
});
