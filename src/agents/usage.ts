import { emptyRoleUsage, emptyUsage } from '../store/run-state.js';
import { addCall, addTotals, type UsageCall, type UsageTotals } from '../store/usage.js';

/** The model roles; each has its own model setting and usage account. */
import { MODEL_ROLES as modelRoles, type ModelRole } from '../store/model-role.js';

export { modelRoles, type ModelRole };

/** USD per million tokens (config `llm.prices`). */
export interface ModelPrice {
  input: number;
  output: number;
}

export type { UsageTotals };

/** One model call as recorded. */
export interface UsageRecord extends UsageCall {
  role: ModelRole;
  modelId: string;
  /** The conflict this call worked on (e.g. `3-7:src/a.ts`), when any. */
  conflict?: string;
}

/** A number, or 0 for the undefined/NaN fields providers leave out. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Input/output tokens from either usage shape: the provider's raw V3 usage
 * (`inputTokens.total`) or the SDK's flattened one (`inputTokens`). Any field may be missing.
 */
export function readUsage(usage: unknown): { inputTokens: number; outputTokens: number } {
  if (typeof usage !== 'object' || usage === null) return { inputTokens: 0, outputTokens: 0 };
  const u = usage as Record<string, unknown>;
  const pick = (v: unknown): number =>
    typeof v === 'object' && v !== null ? tokenCount((v as Record<string, unknown>).total) : tokenCount(v);
  return { inputTokens: pick(u.inputTokens), outputTokens: pick(u.outputTokens) };
}

/** OpenRouter's reported cost (`providerMetadata.openrouter.usage.cost`), when present. */
export function reportedCost(providerMetadata: unknown): number | undefined {
  const cost = (providerMetadata as { openrouter?: { usage?: { cost?: unknown } } } | undefined)?.openrouter?.usage
    ?.cost;
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : undefined;
}

/** Cost of a call: the provider's reported cost wins, else the price table, else unknown (0). */
export function callCost(
  tokens: { inputTokens: number; outputTokens: number },
  price: ModelPrice | undefined,
  reported: number | undefined,
): { costUsd: number; costSource: UsageRecord['costSource'] } {
  if (reported !== undefined) return { costUsd: reported, costSource: 'reported' };
  if (price)
    return {
      costUsd: (tokens.inputTokens * price.input + tokens.outputTokens * price.output) / 1_000_000,
      costSource: 'price',
    };
  return { costUsd: 0, costSource: 'unknown' };
}

/**
 * Token usage and cost per role and per conflict for a run. `records` holds this
 * process's calls; `carry` adds what earlier processes of the same run spent, so
 * totals and the budget count the whole run across resumes.
 */
export class UsageTracker {
  readonly records: UsageRecord[] = [];
  private carried: Record<ModelRole, UsageTotals> = emptyRoleUsage();
  private readonly listeners: Array<(r: UsageRecord) => void> = [];

  record(r: UsageRecord): void {
    this.records.push(r);
    for (const listener of this.listeners) listener(r);
  }

  /** Called with every call as it is recorded (e.g. to journal it at once); returns an unsubscribe. */
  onRecord(listener: (r: UsageRecord) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /**
   * The whole run's totals so far (e.g. from its journal, which holds this tracker's
   * own calls too): what is not one of `records` was spent by earlier processes and
   * is carried. Idempotent: calling it again with newer totals does not double count.
   */
  carryFrom(runTotals: Record<ModelRole, UsageTotals>): void {
    const own = emptyRoleUsage();
    for (const r of this.records) addCall(own[r.role], r);
    for (const role of modelRoles) {
      const run = runTotals[role];
      const mine = own[role];
      this.carried[role] = {
        calls: Math.max(0, run.calls - mine.calls),
        inputTokens: Math.max(0, run.inputTokens - mine.inputTokens),
        outputTokens: Math.max(0, run.outputTokens - mine.outputTokens),
        costUsd: Math.max(0, run.costUsd - mine.costUsd),
        unpricedCalls: Math.max(0, run.unpricedCalls - mine.unpricedCalls),
      };
    }
  }

  total(): UsageTotals {
    const t = emptyUsage();
    for (const role of modelRoles) addTotals(t, this.carried[role]);
    for (const r of this.records) addCall(t, r);
    return t;
  }

  byRole(): Record<ModelRole, UsageTotals> {
    const out = emptyRoleUsage();
    for (const role of modelRoles) addTotals(out[role], this.carried[role]);
    for (const r of this.records) addCall(out[r.role], r);
    return out;
  }

  byConflict(): Record<string, UsageTotals> {
    const out: Record<string, UsageTotals> = {};
    for (const r of this.records) {
      if (r.conflict === undefined) continue;
      addCall((out[r.conflict] ??= emptyUsage()), r);
    }
    return out;
  }

  /** The most one call has cost so far (the budget's estimate of the next call). */
  maxCallCost(): number {
    return this.records.reduce((m, r) => Math.max(m, r.costUsd), 0);
  }
}

/** The budget's verdict on the next call. */
export type BudgetCheck = { ok: true } | { ok: false; spentUsd: number; limitUsd: number; estimateUsd: number };

/**
 * `budget.usd`: refuses a call when what was spent, plus what calls in flight
 * are expected to cost, plus the estimate of this call would pass the limit, so
 * the run stops before the budget is exceeded even with parallel conversations.
 * The estimate is the larger of the costliest call so far and the prompt's
 * input cost at the configured price. A limit of 0 means no limit.
 */
export class BudgetTracker {
  private inFlightUsd = 0;

  constructor(
    readonly limitUsd: number,
    private readonly usage: UsageTracker,
  ) {}

  check(promptEstimateUsd = 0): BudgetCheck {
    if (this.limitUsd <= 0) return { ok: true };
    const spentUsd = this.usage.total().costUsd;
    const estimateUsd = Math.max(this.usage.maxCallCost(), promptEstimateUsd);
    if (spentUsd + this.inFlightUsd + estimateUsd > this.limitUsd || spentUsd >= this.limitUsd) {
      return { ok: false, spentUsd, limitUsd: this.limitUsd, estimateUsd };
    }
    return { ok: true };
  }

  /** Check and hold the estimate while the call runs; `release()` when it ends (the usage then counts). */
  reserve(promptEstimateUsd = 0): { ok: true; release: () => void } | Extract<BudgetCheck, { ok: false }> {
    const verdict = this.check(promptEstimateUsd);
    if (!verdict.ok) return verdict;
    if (this.limitUsd <= 0) return { ok: true, release: () => undefined };
    const held = Math.max(this.usage.maxCallCost(), promptEstimateUsd);
    this.inFlightUsd += held;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.inFlightUsd -= held;
      },
    };
  }
}
