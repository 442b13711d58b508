import type { CheckRunnerLike, FailureSummary } from '../checks/types.js';
import type { Git } from '../git/index.js';
import type { ConflictCell } from '../imerge/types.js';
import type { Logger } from '../log/logger.js';
import type { LadderFallback } from '../resolve/ladder.js';
import type { ConflictedFile } from '../resolve/types.js';
import type { ModelGateway } from './model-gateway.js';
import type { ResolverOutcome } from './resolver/resolver-agent.js';
import type { LineAtIssue } from './review/reviewer.js';
import type { Candidate } from './review/second-opinion.js';
import type { UsageTotals } from './usage.js';

export interface ModelRungOptions {
  gateway: ModelGateway;
  /** Git of the repository (its tools read history through it). */
  git: Git;
  /**
   * The working tree the agent works in (the file is written there at
   * `file.path` for the conversation and put back afterwards; the ladder's
   * caller writes the final text). Omitted: a scratch repository per file
   * (eval, the merge driver), where only the file itself is visible.
   */
  workdir?: string;
  runCheck?: CheckRunnerLike | null;
  details?: ConflictCell | null;
  failure?: FailureSummary | string | null;
  maxTurns?: number;
  /** The fork's own instructions (`resolve.instructions`), sent with every request. */
  instructions?: string;
  /** What the fork's past merges suggest for a hunk (its evidence), given to the model beside the conflict. */
  hints?: ((path: string, hunk: ConflictedFile['hunks'][number]) => string | null) | null;
  log?: Logger;
  /** Independent resolutions per file (`llm.candidates`); above 1 they must agree. Default 1. */
  candidates?: number;
}

/** A file the model resolved whose resolution was not taken: why, the reviewer's lines, every candidate. */
export interface Withheld {
  path: string;
  why: string;
  reviewer: string | null;
  lines: LineAtIssue[];
  /** Each candidate with its text for each hunk, in hunk order (what the hand-off shows of it). */
  candidates: Array<Candidate & { hunks: string[] }>;
}

export interface ModelRung {
  /** The ladder's third rung: resolutions for the open hunks the model resolved. */
  fallback: LadderFallback;
  /** Tokens and cost so far, and the hunks the model resolved (for `eval --with-model`). */
  usage(): { inputTokens: number; outputTokens: number; costUsd: number; hunksResolved: number };
  /** What the reviewer's calls cost so far (zero without `llm.reviewer_model`). */
  reviewerUsage(): UsageTotals;
  /** Every conversation's outcome (transcripts for the report). */
  outcomes: { path: string; outcome: ResolverOutcome }[];
  /** Files whose resolution the candidates or the reviewer did not confirm (offered to the person as candidates). */
  withheld: Withheld[];
}
