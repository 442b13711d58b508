import { randomBytes } from 'node:crypto';
import { generateText, Output } from 'ai';
import * as z from 'zod';
import { nullLogger, type Logger } from '../../log/logger.js';
import { ModelError } from '../model-error.js';
import type { ModelGateway } from '../model-gateway.js';
import { reviewerSystemPrompt, reviewerUserPrompt, type ReviewInput } from './reviewer-prompt.js';

/** What the reviewer may answer; its strings are cut to size after parsing (the model is hostile). */
const verdictSchema = z.object({
  verdict: z.enum(['accept', 'reject']),
  summary: z.string(),
  lines: z.array(z.object({ line: z.number().int(), why: z.string() })).default([]),
});

const MAX_SUMMARY = 500;
const MAX_WHY = 200;
const MAX_LINES = 10;

/** One line of the resolution the reviewer objects to. */
export interface LineAtIssue {
  line: number;
  why: string;
}

/** The second opinion: accepted, or not with why (a rejection's summary, a timeout, an answer that was no verdict). */
export type ReviewVerdict =
  | { accepted: true; modelId: string; summary: string }
  | { accepted: false; modelId: string | null; why: string; lines: LineAtIssue[] };

export interface ReviewDeps {
  gateway: ModelGateway;
  /** The conflict the review is accounted under (e.g. `3-7:src/a.ts`). */
  conflict?: string;
  log?: Logger;
}

/**
 * Ask `llm.reviewer_model` whether a resolution stands. Anything but a well-formed `accept`
 * (a rejection, a timeout, an unparseable answer, the budget) is not an acceptance, with the
 * reason; only an authentication failure throws, since the run must stop.
 */
export async function reviewResolution(input: ReviewInput, deps: ReviewDeps): Promise<ReviewVerdict> {
  const log = (deps.log ?? nullLogger).child({ agent: 'reviewer', path: input.path });
  const guarded = deps.gateway.model('reviewer', deps.conflict);
  if (!guarded) return { accepted: false, modelId: null, why: 'no reviewer model is configured', lines: [] };
  const nonce = randomBytes(6).toString('hex');
  const refused = (why: string): ReviewVerdict => {
    log.decision({ why }, 'reviewer gave no acceptance');
    return { accepted: false, modelId: guarded.modelId, why, lines: [] };
  };
  let output: unknown;
  try {
    ({ output } = await generateText({
      model: guarded.model,
      system: reviewerSystemPrompt(nonce),
      prompt: reviewerUserPrompt(input, nonce),
      output: Output.object({ schema: verdictSchema }),
      // Retries and timeouts live in the resilience wrapper.
      maxRetries: 0,
    }));
  } catch (error) {
    if (ModelError.isModelError(error)) {
      if (error.reason === 'auth') throw error;
      return refused(
        error.reason === 'timeout'
          ? `the reviewer did not answer in time (${error.what})`
          : `the reviewer failed: ${error.what}`,
      );
    }
    return refused('the reviewer answered with no verdict it could be read as');
  }
  const parsed = verdictSchema.safeParse(output);
  if (!parsed.success) return refused('the reviewer answered with no verdict it could be read as');
  const summary = parsed.data.summary.trim().slice(0, MAX_SUMMARY);
  if (parsed.data.verdict === 'accept') {
    log.decision({ summary }, 'reviewer accepted the resolution');
    return { accepted: true, modelId: guarded.modelId, summary };
  }
  const lines = parsed.data.lines
    .slice(0, MAX_LINES)
    .map((l) => ({ line: Math.max(0, l.line), why: l.why.trim().slice(0, MAX_WHY) }));
  log.decision({ summary, lines: lines.length }, 'reviewer rejected the resolution');
  return { accepted: false, modelId: guarded.modelId, why: `rejected: ${summary || 'no reason given'}`, lines };
}
