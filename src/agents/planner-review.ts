import { generateText, Output } from 'ai';
import * as z from 'zod';
import { nullLogger } from '../log/logger.js';
import { ModelError } from './model-error.js';
import type { PlannerDeps } from './planner.js';
import type { AttemptRecord, DecisionSource } from './planner-types.js';

/** Seed "Decision Point 3: Repeated Failures": the model's answer. */
export const reviewAnswerSchema = z.object({
  decision: z.enum(['continue', 'abort']),
  approach: z.string().nullable().optional(),
  pattern_analysis: z.string(),
  reasoning: z.string(),
});

export interface ReviewDecision {
  decision: 'continue' | 'abort';
  /** The strategy/recovery to continue with, when continuing. */
  approach: string | null;
  pattern_analysis: string;
  reasoning: string;
  source: DecisionSource;
}

/** The prompt that asks the model why the same cells keep failing. */
export function reviewPrompt(history: AttemptRecord[]): string {
  return [
    'Multiple recovery attempts have failed. Analyze pattern and decide.',
    '',
    'Attempt history:',
    ...history.flatMap((a, i) => [
      `  Attempt ${i + 1}:`,
      `  - Strategy: ${a.strategy}`,
      `  - Recovery: ${a.recovery ?? 'none'}`,
      '  - Result: FAILED',
      `  - Error: ${a.error_type} at ${a.location ?? 'unknown'}: ${a.root_cause}`,
    ]),
    '',
    'Pattern analysis questions:',
    '- Same files failing repeatedly?',
    '- Same error types?',
    '- Getting closer to success or not?',
    '',
    'Decision:',
    '- Continue with different approach?',
    '- Abort and report to the person?',
    '',
    'Output JSON with fields: decision (continue or abort), approach (strategy/recovery if continue), pattern_analysis (what pattern you observed), reasoning (explanation)',
  ].join('\n');
}

/**
 * Offline review: the same error (type and location) in the last two attempts
 * means no progress → abort; otherwise continue with a more careful approach.
 */
export function reviewPolicy(history: AttemptRecord[]): ReviewDecision {
  const [a, b] = history.slice(-2);
  if (a && b && a.error_type === b.error_type && a.location === b.location) {
    return {
      decision: 'abort',
      approach: null,
      pattern_analysis: `The same ${b.error_type} at ${b.location ?? 'an unknown place'} in the last two attempts.`,
      reasoning: 'No progress between attempts: the person should look.',
      source: 'policy',
    };
  }
  return {
    decision: 'continue',
    approach: 'per_conflict',
    pattern_analysis: 'The failures differ between attempts.',
    reasoning: 'Errors change, so attempts make progress; continue with the most careful strategy.',
    source: 'policy',
  };
}

/** Decide whether to go on after repeated failures; invalid or missing answer → abort (the safe choice). */
export async function reviewRepeatedFailures(history: AttemptRecord[], deps: PlannerDeps): Promise<ReviewDecision> {
  const log = (deps.log ?? nullLogger).child({ agent: 'planner' });
  const guarded = deps.gateway?.model('planner') ?? null;
  let decision: ReviewDecision;
  if (!guarded) {
    decision = reviewPolicy(history);
  } else {
    try {
      const { output } = await generateText({
        model: guarded.model,
        prompt: reviewPrompt(history),
        output: Output.object({ schema: reviewAnswerSchema }),
        maxRetries: 0,
      });
      const v = reviewAnswerSchema.parse(output);
      decision = {
        decision: v.decision,
        approach: v.decision === 'continue' ? (v.approach ?? null) : null,
        pattern_analysis: v.pattern_analysis,
        reasoning: v.reasoning,
        source: 'model',
      };
    } catch (error) {
      if (ModelError.isModelError(error) && error.reason === 'auth') throw error;
      const why = ModelError.isModelError(error) ? error.what : error instanceof Error ? error.message : String(error);
      decision = {
        decision: 'abort',
        approach: null,
        pattern_analysis: '',
        reasoning: `Planner answer rejected (${why}); aborting for the person.`,
        source: 'default',
      };
    }
  }
  log.decision(
    { decision: decision.decision, approach: decision.approach, source: decision.source },
    decision.reasoning,
  );
  return decision;
}
