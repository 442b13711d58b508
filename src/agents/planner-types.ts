import * as z from 'zod';
import type { FailureSummary, FailureType } from '../checks/types.js';
import { strategyNames, type StrategyName } from '../config/goals.js';
import type { StrategyPrediction } from './planner-predict.js';

export const recoveryKinds = ['retry-all', 'retry-specific', 'bisect', 'switch-strategy', 'abort'] as const;
export type RecoveryKind = (typeof recoveryKinds)[number];

/** Seed MergeContext: the planner's input for the initial strategy. */
export interface MergeContext {
  source_ref: string;
  target_branch: string;
  num_source_commits: number;
  num_target_commits: number;
  /** From a dry-run merge; null when unknown. */
  estimated_conflicts: number | null;
  /**
   * Where that count comes from: the groups a plain merge of the tips conflicts in (before the grid
   * is explored), or the conflicts the grid explored so far leaves to come.
   */
  conflicts_basis?: 'tips' | 'grid';
  /** What a plain merge of the two tips leaves conflicted: a lower bound of the conflicts the grid meets. */
  conflicts_lower_bound?: { files: number; hunks: number } | null;
  available_strategies: StrategyName[];
  default_batch_size: number;
  /** Each strategy's predicted check time from the measured check times (planner-predict.ts), cheapest first; absent when nothing was measured. */
  predictions?: StrategyPrediction[];
}

/** One resolution of the failed attempt, as the planner sees it. */
export interface ResolutionNote {
  i1: number;
  i2: number;
  files: string[];
  choice?: string;
  reasoning?: string;
}

/** One earlier failed attempt. */
export interface AttemptRecord {
  strategy: StrategyName;
  recovery: RecoveryKind | null;
  error_type: FailureType;
  location: string | null;
  root_cause: string;
}

/** Seed FailureContext: the planner's input after a failed check. */
export interface FailureContext {
  current_strategy: StrategyName;
  conflicts_resolved: number;
  failure_summary: FailureSummary;
  resolutions: ResolutionNote[];
  previous_attempts: AttemptRecord[];
  max_retries: number;
  attempts_so_far: number;
  available_strategies: StrategyName[];
}

/** What the model must answer for the strategy. */
export const strategyAnswerSchema = z.object({
  strategy: z.enum(strategyNames),
  batch_size: z.number().int().positive().nullable().optional(),
  reasoning: z.string(),
});

/** What the model must answer for a recovery. */
export const recoveryAnswerSchema = z.object({
  decision: z.enum(recoveryKinds),
  conflicts_to_retry: z
    .array(z.tuple([z.number().int(), z.number().int()]))
    .nullable()
    .optional(),
  new_strategy: z.enum(strategyNames).nullable().optional(),
  reasoning: z.string(),
});

/** Where a decision came from: the model, the offline policy, or the safe default after an invalid/missing answer. */
export type DecisionSource = 'model' | 'policy' | 'default';

export interface StrategyDecision {
  strategy: StrategyName;
  /** Set for `batch`. */
  batch_size: number | null;
  reasoning: string;
  source: DecisionSource;
}

export interface RecoveryDecision {
  decision: RecoveryKind;
  /** Cells (i, j) to re-resolve, for retry-specific. */
  conflicts_to_retry: [number, number][] | null;
  new_strategy: StrategyName | null;
  reasoning: string;
  source: DecisionSource;
}
