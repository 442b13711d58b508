import { generateText, Output } from 'ai';
import type * as z from 'zod';
import { nullLogger, type Logger } from '../log/logger.js';
import { ModelError } from './model-error.js';
import type { ModelGateway } from './model-gateway.js';
import { moreConservative, recoveryPolicy, strategyPolicy } from './planner-policy.js';
import {
  recoveryAnswerSchema,
  strategyAnswerSchema,
  type FailureContext,
  type MergeContext,
  type RecoveryDecision,
  type StrategyDecision,
} from './planner-types.js';
import { cellId } from '../imerge/cell.js';

export * from './planner-types.js';
export { recoveryPolicy, strategyPolicy } from './planner-policy.js';

export interface PlannerDeps {
  /** null = offline: the deterministic policy decides. */
  gateway: ModelGateway | null;
  log?: Logger;
}

/** The prompt that asks the model for a strategy. */
export function strategyPrompt(ctx: MergeContext): string {
  return [
    'You are planning a git merge strategy.',
    '',
    'Merge details:',
    `- Source: ${ctx.source_ref} (${ctx.num_source_commits} commits)`,
    `- Target: ${ctx.target_branch} (${ctx.num_target_commits} commits)`,
    `- Estimated conflicts: ${ctx.estimated_conflicts ?? 'unknown'}${ctx.conflicts_basis === 'tips' ? ' (the groups a plain merge of the tips conflicts in)' : ctx.conflicts_basis === 'grid' ? ' (left to come, by the grid explored so far)' : ''}${ctx.conflicts_lower_bound ? ` (lower bound: a plain merge of the two tips conflicts in ${ctx.conflicts_lower_bound.files} file(s), ${ctx.conflicts_lower_bound.hunks} hunk(s))` : ''}`,
    ...(ctx.predictions && ctx.predictions.length > 0
      ? [
          '- Predicted check time of each strategy (from the measured check times):',
          ...ctx.predictions.map(
            (p) =>
              `  - ${p.batchSize ? `${p.strategy} (batch_size ${p.batchSize})` : p.strategy}: ${Math.round(p.ms / 1000)} s over ${p.checks} checks`,
          ),
        ]
      : []),
    '',
    `Available strategies (only these may be chosen: ${ctx.available_strategies.join(', ')}):`,
    '1. optimistic: Resolve all conflicts first, then build and test once',
    '   - Fastest if successful (only 1 build and test)',
    '   - Hard to isolate failures',
    `2. batch: Resolve ${ctx.default_batch_size} conflicts, build and test, repeat`,
    '   - Balanced approach; reasonable isolation; fewer builds and tests than per-conflict',
    '3. per_conflict: Resolve one conflict, build and test, repeat',
    '   - Slowest (most builds and tests); best isolation; safest',
    '',
    'Choose a strategy and set parameters. Explain your reasoning.',
    '',
    'Output JSON with fields: strategy (one of the three options), batch_size (number, only if batch strategy), reasoning (explanation)',
  ].join('\n');
}

/** The prompt that asks the model how to recover from a failed check. */
export function recoveryPrompt(ctx: FailureContext): string {
  const f = ctx.failure_summary;
  const safer = moreConservative(ctx.current_strategy, ctx.available_strategies);
  return [
    'Merge attempt failed. Analyze and choose recovery approach.',
    '',
    'Current attempt:',
    `- Strategy: ${ctx.current_strategy}`,
    `- Conflicts resolved: ${ctx.conflicts_resolved}`,
    '- Build or test result: FAILED',
    '',
    'Failure summary:',
    `- error_type: ${f.error_type}`,
    `- location: ${f.location ?? 'unknown'}`,
    `- root_cause: ${f.root_cause}`,
    `- excerpt:\n${f.excerpt.slice(0, 3000)}`,
    '',
    'Conflicts resolved in this attempt:',
    ...(ctx.resolutions.length === 0
      ? ['(none)']
      : ctx.resolutions.map(
          (r) =>
            `${cellId(r)}: ${r.files.join(', ')} - ${r.choice ?? 'resolved'} - ${(r.reasoning ?? '').slice(0, 300)}`,
        )),
    '',
    'Previous attempts:',
    ...(ctx.previous_attempts.length === 0
      ? ['(none)']
      : ctx.previous_attempts.map(
          (a, i) =>
            `Attempt ${i + 1}: strategy ${a.strategy}, recovery ${a.recovery ?? 'none'}, ${a.error_type} at ${a.location ?? 'unknown'}: ${a.root_cause}`,
        )),
    '',
    'Available recovery options:',
    '1. retry-all: Re-resolve all conflicts with failure context',
    '2. retry-specific: Identify and re-resolve specific conflicts (list which)',
    '3. bisect: Binary search to find problematic resolution',
    `4. switch-strategy: Change to ${safer ?? '(none: already the most conservative strategy)'}`,
    '5. abort: Report to the person (use if problem seems beyond automated recovery)',
    '',
    `Attempt ${ctx.attempts_so_far} of ${ctx.max_retries}.`,
    '',
    'Choose an option and explain your reasoning.',
    'If retry-specific, list which conflict pairs (i1,i2) to retry.',
    '',
    'Output JSON with fields: decision (one of the five options), conflicts_to_retry (list of [i1, i2] pairs, only if retry-specific), new_strategy (strategy name, only if switch-strategy), reasoning (explanation)',
  ].join('\n');
}

type Asked<T> = { ok: true; value: T } | { ok: false; why: string };

async function ask<S extends z.ZodType>(
  deps: PlannerDeps,
  prompt: string,
  schema: S,
  log: Logger,
): Promise<Asked<z.infer<S>> | null> {
  const guarded = deps.gateway?.model('planner') ?? null;
  if (!guarded) return null;
  try {
    const { output } = await generateText({
      model: guarded.model,
      prompt,
      output: Output.object({ schema }),
      maxRetries: 0,
    });
    const parsed = schema.safeParse(output);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, why: `invalid answer: ${parsed.error.message}` };
  } catch (error) {
    if (ModelError.isModelError(error)) {
      if (error.reason === 'auth') throw error;
      log.warn({ error: error.what }, 'planner model unavailable');
      return { ok: false, why: `no answer: ${error.what}` };
    }
    return { ok: false, why: `invalid answer: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Choose the initial strategy. Offline: the deterministic policy. With a model:
 * its answer, checked against the available strategies; an invalid or missing
 * answer falls back to per_conflict, the safest.
 */
export async function chooseStrategy(ctx: MergeContext, deps: PlannerDeps): Promise<StrategyDecision> {
  const log = (deps.log ?? nullLogger).child({ agent: 'planner' });
  const answer = await ask(deps, strategyPrompt(ctx), strategyAnswerSchema, log);
  let decision: StrategyDecision;
  if (answer === null) {
    decision = strategyPolicy(ctx);
  } else if (!answer.ok || !ctx.available_strategies.includes(answer.value.strategy)) {
    const why = answer.ok ? `strategy ${answer.value.strategy} is not available` : answer.why;
    decision = {
      strategy: 'per_conflict',
      batch_size: null,
      reasoning: `Planner answer rejected (${why}); using per_conflict, the safest strategy.`,
      source: 'default',
    };
  } else {
    const v = answer.value;
    decision = {
      strategy: v.strategy,
      batch_size: v.strategy === 'batch' ? (v.batch_size ?? ctx.default_batch_size) : null,
      reasoning: v.reasoning,
      source: 'model',
    };
  }
  log.decision(
    { strategy: decision.strategy, batch_size: decision.batch_size, source: decision.source },
    decision.reasoning,
  );
  return decision;
}

/**
 * Decide how to recover from a failed check. Offline: the deterministic policy.
 * With a model: its answer, checked (retry-specific must name cells of this
 * attempt, switch-strategy an available, more conservative strategy); an
 * invalid or missing answer means abort, the safest. Out of retries is
 * always abort.
 */
export async function planRecovery(ctx: FailureContext, deps: PlannerDeps): Promise<RecoveryDecision> {
  const log = (deps.log ?? nullLogger).child({ agent: 'planner' });
  let decision: RecoveryDecision;
  if (ctx.attempts_so_far >= ctx.max_retries) {
    decision = recoveryPolicy(ctx);
  } else {
    const answer = await ask(deps, recoveryPrompt(ctx), recoveryAnswerSchema, log);
    if (answer === null) {
      decision = recoveryPolicy(ctx);
    } else {
      const problem = answer.ok ? checkRecovery(answer.value, ctx) : answer.why;
      if (problem !== null || !answer.ok) {
        decision = {
          decision: 'abort',
          conflicts_to_retry: null,
          new_strategy: null,
          reasoning: `Planner answer rejected (${problem}); aborting for the person, the safest choice.`,
          source: 'default',
        };
      } else {
        const v = answer.value;
        decision = {
          decision: v.decision,
          conflicts_to_retry: v.decision === 'retry-specific' ? (v.conflicts_to_retry ?? []) : null,
          new_strategy: v.decision === 'switch-strategy' ? (v.new_strategy ?? null) : null,
          reasoning: v.reasoning,
          source: 'model',
        };
      }
    }
  }
  log.decision(
    {
      decision: decision.decision,
      conflicts: decision.conflicts_to_retry,
      new_strategy: decision.new_strategy,
      source: decision.source,
    },
    decision.reasoning,
  );
  return decision;
}

function checkRecovery(v: z.infer<typeof recoveryAnswerSchema>, ctx: FailureContext): string | null {
  if (v.decision === 'retry-specific') {
    const pairs = v.conflicts_to_retry ?? [];
    if (pairs.length === 0) return 'retry-specific without conflicts_to_retry';
    const known = new Set(ctx.resolutions.map((r) => `${r.i1},${r.i2}`));
    const unknown = pairs.filter(([a, b]) => !known.has(`${a},${b}`));
    if (unknown.length > 0)
      return `conflicts_to_retry names cells not resolved in this attempt: ${unknown.map((p) => p.join('-')).join(', ')}`;
  }
  if (v.decision === 'switch-strategy') {
    if (!v.new_strategy) return 'switch-strategy without new_strategy';
    if (!ctx.available_strategies.includes(v.new_strategy)) return `strategy ${v.new_strategy} is not available`;
    if (v.new_strategy === ctx.current_strategy) return `new_strategy is the current strategy ${v.new_strategy}`;
  }
  return null;
}
