import * as z from 'zod';

/** What the run learnt of the two tips before resolving: written by the initialize and plan_strategy nodes. */
export const tipFactsSchema = z.object({
  /** The paths a plain merge of the tips leaves conflicted, grouped into expected conflicts (imerge/conflict-estimate.ts). */
  tipConflicts: z.array(z.array(z.string())).optional(),
  /** The checks the tips run alongside the first conflicts (tip-checks.ts), recorded once they finish. */
  tipsAlongside: z.array(z.string()).optional(),
});

/** A state holding this sub-record in its `data` (flow-data.ts). */
type Holder = { data: { tips?: z.infer<typeof tipFactsSchema> } };

export interface TipFacts {
  /** Null when not measured (a run rebuilt by doctor): the progress estimate then counts what it has seen. */
  tipConflicts: string[][] | null;
  tipsAlongside: string[];
}

/** What the run learnt of the tips. */
export function tipFacts(state: Holder): TipFacts {
  const t = state.data.tips ?? {};
  return { tipConflicts: t.tipConflicts ?? null, tipsAlongside: t.tipsAlongside ?? [] };
}

/** The state with the tips' conflicts or the checks run alongside recorded. */
export function withTipFacts<S extends Holder>(
  state: S,
  patch: Partial<Omit<TipFacts, 'tipConflicts'>> & { tipConflicts?: string[][] },
): S {
  return { ...state, data: { ...state.data, tips: { ...state.data.tips, ...patch } } };
}
