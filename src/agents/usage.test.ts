import { describe, expect, it } from 'vitest';
import { BudgetTracker, callCost, readUsage, reportedCost, UsageTracker } from './usage.js';

describe('usage and cost', () => {
  it('reads both usage shapes and treats missing fields as 0', () => {
    expect(readUsage({ inputTokens: { total: 12 }, outputTokens: { total: undefined } })).toEqual({
      inputTokens: 12,
      outputTokens: 0,
    });
    expect(readUsage({ inputTokens: 5, outputTokens: 7, totalTokens: 12 })).toEqual({
      inputTokens: 5,
      outputTokens: 7,
    });
    expect(readUsage({ inputTokens: Number.NaN })).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(readUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it('the reported cost wins over the price table; no price = unknown', () => {
    expect(reportedCost({ openrouter: { usage: { cost: 0.5 } } })).toBe(0.5);
    expect(reportedCost({ openrouter: { usage: {} } })).toBeUndefined();
    const t = { inputTokens: 1_000_000, outputTokens: 500_000 };
    expect(callCost(t, { input: 3, output: 15 }, undefined)).toEqual({ costUsd: 3 + 7.5, costSource: 'price' });
    expect(callCost(t, { input: 3, output: 15 }, 0.25)).toEqual({ costUsd: 0.25, costSource: 'reported' });
    expect(callCost(t, undefined, undefined)).toEqual({ costUsd: 0, costSource: 'unknown' });
  });

  it('sums per role and per conflict', () => {
    const u = new UsageTracker();
    u.record({
      role: 'resolver',
      modelId: 'm',
      conflict: '1-1',
      inputTokens: 10,
      outputTokens: 2,
      costUsd: 0.1,
      costSource: 'price',
    });
    u.record({
      role: 'resolver',
      modelId: 'm',
      conflict: '1-2',
      inputTokens: 5,
      outputTokens: 1,
      costUsd: 0,
      costSource: 'unknown',
    });
    u.record({ role: 'planner', modelId: 'p', inputTokens: 1, outputTokens: 1, costUsd: 0.2, costSource: 'reported' });
    expect(u.byRole().resolver).toEqual({ calls: 2, inputTokens: 15, outputTokens: 3, costUsd: 0.1, unpricedCalls: 1 });
    expect(Object.keys(u.byConflict())).toEqual(['1-1', '1-2']);
    expect(u.total().costUsd).toBeCloseTo(0.3);
  });

  it('the budget refuses the call that would pass the limit, not after', () => {
    const u = new UsageTracker();
    const b = new BudgetTracker(1, u);
    expect(b.check()).toEqual({ ok: true });
    u.record({ role: 'resolver', modelId: 'm', inputTokens: 0, outputTokens: 0, costUsd: 0.4, costSource: 'price' });
    expect(b.check().ok).toBe(true); // 0.4 spent + 0.4 estimated <= 1
    u.record({ role: 'resolver', modelId: 'm', inputTokens: 0, outputTokens: 0, costUsd: 0.4, costSource: 'price' });
    expect(b.check()).toEqual({ ok: false, spentUsd: 0.8, limitUsd: 1, estimateUsd: 0.4 });
    expect(new BudgetTracker(0, u).check().ok).toBe(true);
    expect(new BudgetTracker(10, new UsageTracker()).check(11).ok).toBe(false);
  });
});

describe('budget with parallel calls', () => {
  it('holds the estimate of calls in flight', () => {
    const u = new UsageTracker();
    u.record({ role: 'resolver', modelId: 'm', inputTokens: 0, outputTokens: 0, costUsd: 0.4, costSource: 'price' });
    const b = new BudgetTracker(1, u);
    const first = b.reserve();
    expect(first.ok).toBe(true); // 0.4 spent + 0.4
    const second = b.reserve();
    expect(second.ok).toBe(false); // 0.4 spent + 0.4 held + 0.4 > 1
    if (first.ok) first.release();
    expect(b.reserve().ok).toBe(true);
  });
});

describe('usage carried from earlier processes of the run', () => {
  const call = {
    role: 'resolver' as const,
    modelId: 'm',
    inputTokens: 100,
    outputTokens: 20,
    costUsd: 0.25,
    costSource: 'price' as const,
  };
  const totals = (costUsd: number, calls: number) => ({
    resolver: { calls, inputTokens: 100 * calls, outputTokens: 20 * calls, costUsd, unpricedCalls: 0 },
    reviewer: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedCalls: 0 },
    summarizer: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedCalls: 0 },
    planner: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedCalls: 0 },
  });

  it('counts the run totals once, however often they are carried, and listeners see each new call', () => {
    const usage = new UsageTracker();
    const seen: number[] = [];
    const stop = usage.onRecord((r) => seen.push(r.costUsd));
    usage.carryFrom(totals(0.5, 2));
    usage.record(call);
    expect(usage.total().costUsd).toBeCloseTo(0.75);
    // The journal now holds the earlier calls and this one: carrying it again changes nothing.
    usage.carryFrom(totals(0.75, 3));
    expect(usage.total()).toMatchObject({ calls: 3, costUsd: 0.75 });
    expect(usage.byRole().resolver.calls).toBe(3);
    stop();
    usage.record(call);
    expect(seen).toEqual([0.25]);
  });

  it('the budget refuses a call that carried spend would push past the limit', () => {
    const usage = new UsageTracker();
    usage.carryFrom(totals(0.9, 4));
    const budget = new BudgetTracker(1, usage);
    expect(budget.check(0.05)).toEqual({ ok: true });
    expect(budget.check(0.2)).toMatchObject({ ok: false, spentUsd: 0.9, limitUsd: 1 });
  });
});
