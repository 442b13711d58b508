import type { StrategyName } from '../config/goals.js';
import type { FailureContext, MergeContext, RecoveryDecision, StrategyDecision } from './planner-types.js';
import type { StrategyPrediction } from './planner-predict.js';

/** Most conservative first. */
const byCaution: StrategyName[] = ['per_conflict', 'batch', 'optimistic'];

/** The strategy itself if available, else the most conservative available one. */
function available(want: StrategyName, list: StrategyName[]): StrategyName {
  if (list.includes(want)) return want;
  return byCaution.find((s) => list.includes(s)) ?? 'per_conflict';
}

/** The next more conservative available strategy, or null when already the safest. */
export function moreConservative(current: StrategyName, list: StrategyName[]): StrategyName | null {
  const idx = byCaution.indexOf(current);
  for (let i = idx - 1; i >= 0; i--) {
    const s = byCaution[i] as StrategyName;
    if (list.includes(s)) return s;
  }
  return null;
}

/**
 * Offline strategy choice, so the planner works without a model: unknown conflict
 * count → per_conflict; few conflicts on a small merge → optimistic; otherwise
 * batch with the default batch size (smaller when conflicts are few).
 */
export function strategyPolicy(ctx: MergeContext): StrategyDecision {
  const best = ctx.predictions?.[0];
  if (best && ctx.estimated_conflicts !== null) return predictedChoice(ctx.predictions ?? [], expectedWords(ctx));
  const commits = ctx.num_source_commits + ctx.num_target_commits;
  const est = ctx.estimated_conflicts;
  let strategy: StrategyName;
  let reasoning: string;
  if (est === null) {
    strategy = 'per_conflict';
    reasoning = lowerBoundReasoning(ctx.conflicts_lower_bound ?? null);
  } else if (est <= 3 && commits <= 50) {
    strategy = 'optimistic';
    reasoning = `Only ${expectedWords(ctx)} over ${commits} commits: resolve all, then check once.`;
  } else {
    strategy = 'batch';
    reasoning = `${capitalised(expectedWords(ctx))} over ${commits} commits: check in batches to keep failures isolated.`;
  }
  const chosen = available(strategy, ctx.available_strategies);
  if (chosen !== strategy) reasoning += ` ${strategy} is not available; using ${chosen}.`;
  const batch =
    chosen === 'batch'
      ? Math.max(1, Math.min(ctx.default_batch_size, est !== null ? Math.ceil(est / 3) : ctx.default_batch_size))
      : null;
  return { strategy: chosen, batch_size: batch, reasoning, source: 'policy' };
}

/**
 * The count the choice rests on, with its basis: the grid's own count, once explored, is a
 * different figure from the tips' groups, and a person reading both must see why they differ.
 */
function expectedWords(ctx: MergeContext): string {
  const n = ctx.estimated_conflicts ?? 0;
  if (ctx.conflicts_basis === 'tips')
    return `${n} conflict(s) expected (the groups a plain merge of the tips conflicts in; the grid may meet more)`;
  if (ctx.conflicts_basis === 'grid') return `${n} conflict(s) left by the grid explored so far`;
  return `${n} conflict(s) expected`;
}

const capitalised = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Checking every resolution on its own costs this much more than the cheapest strategy at most
 * and is still chosen: a failure then names its resolution at once, and a person's work is checked
 * before they are handed the next conflict.
 */
const SAFE_MARGIN_MS = 5 * 60_000;

/** The cheapest predicted strategy, or per_conflict where it costs at most SAFE_MARGIN_MS more. */
function predictedChoice(predictions: readonly StrategyPrediction[], expected: string): StrategyDecision {
  const best = predictions[0] as StrategyPrediction;
  const safest = predictions.find((p) => p.strategy === 'per_conflict');
  const pick = safest && safest.ms - best.ms <= SAFE_MARGIN_MS ? safest : best;
  const others = predictions.filter((p) => p !== pick).map((p) => `${strategyLabel(p)} ${formatMinutes(p.ms)}`);
  const why =
    pick === best
      ? 'the cheapest'
      : `at most ${formatMinutes(SAFE_MARGIN_MS).slice(1)} more than the cheapest, so every resolution is checked on its own`;
  return {
    strategy: pick.strategy,
    batch_size: pick.batchSize,
    reasoning:
      `${capitalised(expected)}; predicted check time ${strategyLabel(pick)} ${formatMinutes(pick.ms)}` +
      `${others.length > 0 ? ` (${others.join(', ')})` : ''}: ${why}.`,
    source: 'policy',
  };
}

/** `batch(5)`, `per_conflict`. */
function strategyLabel(p: { strategy: StrategyName; batchSize: number | null }): string {
  return p.batchSize ? `${p.strategy}(${p.batchSize})` : p.strategy;
}

/** Minutes, as a prediction is read: `~12 min`, `~1 h 05 min`. */
function formatMinutes(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes >= 60
    ? `~${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`
    : `~${minutes} min`;
}

/**
 * Why the safest strategy when only a lower bound is known: a plain merge of the tips shows some of the conflicts,
 * not how many cells of the grid conflict on the way.
 */
function lowerBoundReasoning(bound: { files: number; hunks: number } | null): string {
  if (bound === null) return 'The number of conflicts is unknown, so the safest strategy is used.';
  const per = 'so the safest strategy is used: each conflict checked on its own';
  if (bound.files === 0)
    return `A plain merge of the two tips is clean; cells of the grid may still conflict on the way, ${per}.`;
  return `A plain merge of the two tips conflicts in ${bound.files} file(s) (${bound.hunks} hunk(s)): at least that many to resolve, and cells of the grid may conflict on the way, ${per}.`;
}

function fileOf(location: string | null): string | null {
  if (!location) return null;
  const m = /^([^:\s]+\.[A-Za-z0-9]+)(?::\d+)?/.exec(location.trim());
  return m ? (m[1] as string) : null;
}

/**
 * Offline recovery choice: out of attempts → abort; a check timeout → abort
 * (likely resources, not a resolution); the same error as last time → a more
 * conservative strategy (abort when already per_conflict); an error located in
 * a file some resolutions touched → retry-specific on those; several
 * resolutions → bisect; otherwise retry-all.
 */
export function recoveryPolicy(ctx: FailureContext): RecoveryDecision {
  const base = { conflicts_to_retry: null, new_strategy: null, source: 'policy' as const };
  const f = ctx.failure_summary;
  if (ctx.attempts_so_far >= ctx.max_retries) {
    return {
      ...base,
      decision: 'abort',
      reasoning: `Attempt ${ctx.attempts_so_far} of ${ctx.max_retries}: no retries left.`,
    };
  }
  if (f.error_type === 'timeout') {
    return {
      ...base,
      decision: 'abort',
      reasoning:
        'The check timed out; this is more likely a resource or timeout setting than a wrong resolution (raise check.timeout if builds are slow).',
    };
  }
  const last = ctx.previous_attempts[ctx.previous_attempts.length - 1];
  if (last && last.error_type === f.error_type && last.location === f.location) {
    const next = moreConservative(ctx.current_strategy, ctx.available_strategies);
    if (next)
      return {
        ...base,
        decision: 'switch-strategy',
        new_strategy: next,
        reasoning: `The same ${f.error_type} at ${f.location ?? 'the same place'} happened again; switching to ${next}.`,
      };
    return {
      ...base,
      decision: 'abort',
      reasoning: `The same ${f.error_type} repeats with the safest strategy; the person should look.`,
    };
  }
  const file = fileOf(f.location);
  if (file) {
    const hits = ctx.resolutions.filter((r) =>
      r.files.some((x) => x === file || x.endsWith(`/${file}`) || file.endsWith(`/${x}`)),
    );
    if (hits.length > 0 && hits.length < ctx.resolutions.length) {
      return {
        ...base,
        decision: 'retry-specific',
        conflicts_to_retry: hits.map((r) => [r.i1, r.i2]),
        reasoning: `The error is in ${file}, which ${hits.length} resolution(s) touched.`,
      };
    }
  }
  if (ctx.resolutions.length > 1 && ctx.current_strategy !== 'per_conflict') {
    return {
      ...base,
      decision: 'bisect',
      reasoning: `${ctx.resolutions.length} resolutions and no clear culprit: bisect to find the one that breaks the check.`,
    };
  }
  return {
    ...base,
    decision: 'retry-all',
    reasoning: 'Re-resolve the conflicts of this attempt with the failure summary as context.',
  };
}
