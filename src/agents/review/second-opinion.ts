import { candidatesAgree } from './candidates.js';
import type { LineAtIssue, ReviewVerdict } from './reviewer.js';

/** One independent resolution of a file. */
export interface Candidate {
  text: string;
  modelId: string;
}

/** Whether a resolution is the model's; when not, every candidate goes to the person as a choice. */
export type Opinion =
  | { accepted: true; text: string; modelId: string }
  | { accepted: false; why: string; reviewer: string | null; lines: LineAtIssue[]; candidates: Candidate[] };

/**
 * Decide whether the model's answer for a file stands. With `asked` above 1 (`llm.candidates`) it
 * stands only when every candidate came back and they agree (whitespace ignored); with a reviewer
 * (`llm.reviewer_model`), only when the reviewer accepts it as well: candidates of one model can
 * agree on the same loss, so a configured reviewer is never skipped. With neither, as before.
 * Null when no candidate resolved the file at all.
 */
export async function secondOpinion(
  asked: number,
  resolved: readonly Candidate[],
  review: ((candidate: Candidate) => Promise<ReviewVerdict>) | null,
): Promise<Opinion | null> {
  const first = resolved[0];
  if (first === undefined) return null;
  if (asked > 1) {
    const agree = resolved.length === asked && candidatesAgree(resolved.map((c) => c.text));
    if (agree && review === null) return { accepted: true, text: first.text, modelId: first.modelId };
    if (agree) return reviewed(first, review!);
    const why =
      resolved.length < asked
        ? `only ${resolved.length} of the ${asked} candidates resolved the file`
        : `the ${asked} candidates disagree`;
    return { accepted: false, why, reviewer: null, lines: [], candidates: [...resolved] };
  }
  if (review === null) return { accepted: true, text: first.text, modelId: first.modelId };
  return reviewed(first, review);
}

async function reviewed(first: Candidate, review: (candidate: Candidate) => Promise<ReviewVerdict>): Promise<Opinion> {
  const verdict = await review(first);
  if (verdict.accepted) return { accepted: true, text: first.text, modelId: first.modelId };
  return { accepted: false, why: verdict.why, reviewer: verdict.modelId, lines: verdict.lines, candidates: [first] };
}
