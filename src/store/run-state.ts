import * as z from 'zod';
import { fileDropsSchema, finalDropsSchema } from './drops-state.js';
import { failureSummarySchema } from './failure-summary.js';
import { flowDataSchema } from './flow-data.js';
import { GOALS, strategyNames, type StrategyName } from '../config/goals.js';
import { rungSchema, withStoredFileRung, withStoredRung } from './rung.js';
import { CHECK_TARGETS } from './baseline-side.js';
import { SIDES } from './side.js';

export * from './baseline-side.js';
export * from './side.js';
import { handoffSchema } from './handoff-state.js';
import { currentRunState, deciderEnum, statusSchema } from './old-spellings.js';
import { cellSchema, index, isoTime, oid } from './state-primitives.js';

export type { FlowData } from './flow-data.js';

export * from './handoff-state.js';

/**
 * The durable state of one merge run (`.git/splintercat/NAME/state.json`), version 1.
 * Attempts, resolutions and recovery decisions as plain JSON: no Dates (ISO strings), no paths objects,
 * no live components. The runner rewrites the whole file after every node.
 */
export const RUN_STATE_VERSION = 1;

/** The strategies a run records: the one list of config/goals.ts. */
const strategyKinds = strategyNames;
const strategyKindSchema = z.enum(strategyKinds);
export type StrategyKind = z.infer<typeof strategyKindSchema>;

const recoveryKinds = ['retry-all', 'retry-specific', 'bisect', 'switch-strategy', 'abort'] as const;
const recoveryKindSchema = z.enum(recoveryKinds);

const runStatuses = ['running', 'stopped', 'needs_person', 'failed', 'done'] as const;
export const runStatusSchema = statusSchema(runStatuses);

/** Who made a decision: the planner model, the deterministic fallback policy, the runner's rules, or the person. */
export const deciderSchema = deciderEnum(['planner', 'fallback', 'runner', 'person']);

export { cellSchema } from './state-primitives.js';

/** A strategy's predicted check time (agents/planner-predict.ts). */
const strategyPredictionSchema = z.object({
  strategy: strategyKindSchema,
  batchSize: z.number().int().positive().nullable(),
  ms: z.number().nonnegative(),
  checks: z.number().int().nonnegative(),
});

const strategyStateSchema = z.object({
  kind: strategyKindSchema,
  /** Conflicts per batch for `batch`; null otherwise. */
  batchSize: z.number().int().positive().nullable(),
  decidedBy: deciderSchema,
  reasoning: z.string(),
  decidedAt: isoTime,
  /**
   * What the planner predicted when it chose: the conflicts expected, what a check after a
   * resolution and a full check cost (measured on the tips), the chosen strategy's check time and
   * every alternative's. Absent when nothing could be measured.
   */
  prediction: z
    .object({
      conflicts: z.number().int().nonnegative(),
      /** The strategy it is the prediction of (`batch(8)`): a switch after a failed check leaves it the old one's. */
      strategy: z.string().optional(),
      checkMs: z.number().nonnegative(),
      fullMs: z.number().nonnegative(),
      ms: z.number().nonnegative(),
      alternatives: z.array(strategyPredictionSchema),
    })
    .nullable()
    .optional(),
});

const recoveryDecisionSchema = z.object({
  decision: recoveryKindSchema,
  reasoning: z.string(),
  decidedBy: deciderSchema,
  /** Conflict ids (`I1-I2`) to retry, for retry-specific. */
  conflicts: z.array(z.string()).default([]),
  /** The strategy to switch to, for switch-strategy. */
  newStrategy: strategyKindSchema.nullable().default(null),
  batchSize: z.number().int().positive().nullable().default(null),
});
export type RecoveryDecision = z.infer<typeof recoveryDecisionSchema>;

export const gridStateSchema = z.object({
  /** Commits on each axis: `i1` the fork's, `i2` upstream's (a cell's stored keys). */
  size: z.object({ i1: index, i2: index }),
  /** The cell the merge has reached (the last filled corner), when known. */
  position: cellSchema.nullable(),
  /** Blocked cells known so far. */
  blockers: z.array(cellSchema),
  /**
   * Per fork commit (the grid's rows, the first commit first), the inner cells of its row at or behind the frontier (dominated
   * by a merged cell): the explored part of the grid the estimates read. States written before it was recorded lack it; older
   * ones count only the merged cells, which only widens their range.
   */
  filled: z.array(z.number().int().nonnegative()).optional(),
});

export { rungSchema } from './rung.js';

const hunkStatusSchema = statusSchema(['pending', 'resolved', 'needs_person']);
const hunkStateSchema = withStoredRung(
  z.object({
    index: z.number().int().positive(),
    status: hunkStatusSchema,
    /** The ladder rung that resolved it; null while pending. */
    rung: rungSchema.nullable(),
    /** The rule name or model id. */
    by: z.string().nullable(),
    cacheKey: z.string().nullable().default(null),
    /** What a person kept for a hunk handed to them: ours, theirs, ours then theirs, theirs then ours, base, other text. */
    choice: z.string().optional(),
    /** The person who settled it, as git names them (`user.name <user.email>`), where a person did. */
    person: z.string().optional(),
  }),
);

const conflictFileSchema = withStoredFileRung(
  z.object({
    path: z.string().min(1),
    /** FileConflictKind of imerge/types.ts (content, modify/delete, ...). */
    kind: z.string(),
    hunks: z.array(hunkStateSchema),
    /** Who settled a file-level choice (modify/delete, mode, binary, ...), where there are no hunks to say it. */
    decidedBy: rungSchema.nullable().optional(),
    /** How a file without hunks was settled, in words (`regenerated with ...`, `keep theirs (policy glob)`). */
    note: z.string().optional(),
    /** What the resolution lost of each side's change (the survival audit); absent when nothing or not audited. */
    drops: fileDropsSchema.optional(),
    /** A person's choice of the whole file: one side's file throughout, or deleted (`git rm`). */
    whole: z.enum(['ours', 'theirs', 'deleted']).optional(),
    /** The person who settled the file, as git names them, where a person did. */
    person: z.string().optional(),
  }),
);
export type ConflictFileState = z.infer<typeof conflictFileSchema>;

const conflictStatusSchema = statusSchema(['pending', 'resolving', 'resolved', 'needs_person', 'blamed']);
export type ConflictStatus = z.infer<typeof conflictStatusSchema>;

const conflictStateSchema = z.object({
  /** `I1-I2`. */
  id: z.string(),
  cell: cellSchema,
  files: z.array(conflictFileSchema),
  status: conflictStatusSchema,
  /** The resolved tree and the manual-merge commit recorded at `refs/imerge/NAME/manual/I1-I2`. */
  resolutionTree: oid.nullable(),
  resolutionCommit: oid.nullable(),
  /** How many times this conflict was resolved (1 + retries). */
  attempts: z.number().int().nonnegative(),
  /** The attempt number whose resolution is current. */
  resolvedInAttempt: z.number().int().nonnegative().nullable().default(null),
  /** Why the last resolution was blamed (failure summary root cause), if it was. */
  blame: z.string().nullable().default(null),
  /** Why no check ran for the current resolution (it changes no compiled byte: whitespace or comments only), if none did. */
  checkSkipped: z.string().nullable().optional(),
  /** Files a person changed at its hand-off beyond the conflict's own files: kept, checked, recorded as theirs. */
  outsideEdits: z.array(z.string()).optional(),
});
export type ConflictState = z.infer<typeof conflictStateSchema>;

export { failureSummarySchema } from './failure-summary.js';

/** A check's outcome on one commit (checks/baseline.ts SideOutcome): the failing tests by name, or null when none could be named. */
const sideOutcomeSchema = z.object({
  passed: z.boolean(),
  failing: z.array(z.string()).nullable(),
  ran: z.number().int().nonnegative().nullable().default(null),
  /** Why the run stopped before running every test, as its own output says (`pytest -x`, `mocha --bail`, a crash). */
  stopped: z.string().nullable().optional(),
  /** The runner's own count of failing tests, and the exit status: compare sides whose failures have no names. */
  failed: z.number().int().nonnegative().nullable().optional(),
  exitCode: z.number().int().nullable().optional(),
});

/** How a failed check on a cell or the final merge compared with its baselines (checks/baseline.ts BaselineComparison). */
const checkJudgementSchema = z.object({
  verdict: z.enum(['pass', 'new_failures', 'inherited_only', 'broken_by_merge', 'cannot_tell']),
  by: z.enum(['tests', 'outcome']),
  blamed: z.array(z.string()),
  inherited: z.array(z.string()),
  incomplete: z.boolean(),
  reason: z.string(),
  /** The baselines it was compared with (`fork tip`, `fork commit 3 (1a2b3c4)`, ...). */
  against: z.array(z.string()).default([]),
});
export type CheckJudgement = z.infer<typeof checkJudgementSchema>;

/**
 * A check's outcome on a commit whose failures are not blamed on resolutions: a tip (`cell` null), or
 * the fork commit (i, 0) or upstream commit (0, j) of a cell whose check failed.
 */
const baselineSchema = z.object({
  side: z.enum(SIDES),
  commit: oid,
  cell: cellSchema.nullable(),
  check: z.string(),
  outcome: sideOutcomeSchema,
  logFile: z.string(),
});
export type BaselineState = z.infer<typeof baselineSchema>;

/** True when `kind` is one of the strategies. */
export function isStrategyKind(kind: string): kind is StrategyName {
  return (strategyKinds as readonly string[]).includes(kind);
}

export const checkRecordSchema = z.object({
  name: z.string(),
  /**
   * The grid cell checked; null for a tip or the final tree. A baseline run on a cell's own fork or
   * upstream commit (to judge a failure there) has the edge cell: (i, 0) or (0, j).
   */
  cell: cellSchema.nullable(),
  /** What was checked: a baseline tip, a cell, or the final merge. */
  target: z.enum(CHECK_TARGETS).default('cell'),
  commit: oid.nullable().default(null),
  success: z.boolean(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean().default(false),
  durationMs: z.number().nonnegative(),
  logFile: z.string(),
  summary: failureSummarySchema.nullable().default(null),
  attempt: z.number().int().nonnegative(),
  at: isoTime,
  /** The tests its log names as failing (and how many ran), when read. */
  outcome: sideOutcomeSchema.optional(),
  /** For a failed check on a cell or the final merge: its comparison with the baselines (blamed or not). */
  judgement: checkJudgementSchema.optional(),
});
export type CheckRecord = z.infer<typeof checkRecordSchema>;

export const attemptRecordSchema = z.object({
  number: z.number().int().positive(),
  strategy: strategyKindSchema,
  batchSize: z.number().int().positive().nullable(),
  /** Conflict ids resolved in this attempt. */
  resolutions: z.array(z.string()),
  checks: z.array(z.object({ name: z.string(), success: z.boolean(), logFile: z.string() })),
  failureSummary: failureSummarySchema.nullable(),
  recovery: recoveryDecisionSchema.nullable(),
  startedAt: isoTime,
  finishedAt: isoTime.nullable(),
});

const usageTotalsSchema = z.object({
  calls: z.number().int().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  unpricedCalls: z.number().int().nonnegative(),
});
export type UsageTotalsState = z.infer<typeof usageTotalsSchema>;

export function emptyUsage(): UsageTotalsState {
  return { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedCalls: 0 };
}

/** Nothing spent by any model role. */
export function emptyRoleUsage(): RunState['usage'] {
  return { resolver: emptyUsage(), reviewer: emptyUsage(), summarizer: emptyUsage(), planner: emptyUsage() };
}

/**
 * Failing tests a person accepted at a conflict (`continue --accept-failure`): expected at that
 * step of the merge (code the fork or upstream fixes later). From then on they are compared like
 * a baseline's, never blamed on a resolution, and every report lists them.
 */
export const acceptedFailureSchema = z.object({
  check: z.string(),
  /** The conflicts whose hand-off showed the failure (`I1-I2`). */
  conflicts: z.array(z.string()),
  /** The accepted check's outcome (its failing tests; null failing = the whole outcome, unnamed). */
  outcome: sideOutcomeSchema,
  logFile: z.string(),
  at: isoTime,
});
export type AcceptedFailure = z.infer<typeof acceptedFailureSchema>;

/** The run's configuration (see config/stored-config.ts): values validated by the config loader when used. */
const storedConfigSchema = z.object({
  values: z.record(z.string(), z.json()),
  file: z.string().nullable(),
  fileHash: z.string().nullable(),
  sets: z.array(z.string()).default([]),
});

export const runStateSchema = z.object({
  version: z.literal(RUN_STATE_VERSION),
  /** Identity: fixed when the run starts. */
  name: z.string().min(1),
  /** What merges in: the ref given to `merge` and its commit. Earlier versions stored it as `source`. */
  upstream: z.object({ ref: z.string().min(1), oid }),
  /** The branch it merges into and its commit when the run started. Earlier versions stored it as `target`. */
  fork: z.object({ branch: z.string().min(1), originalOid: oid }),
  workdir: z.string().min(1),
  goal: z.enum(GOALS),
  startedAt: isoTime,
  updatedAt: isoTime,
  /** The machine's position: the node to run next ('end' when finished) and steps taken. */
  phase: z.string().min(1),
  step: z.number().int().nonnegative(),
  status: runStatusSchema,
  /** Why the run stopped, failed or needs the person. */
  statusReason: z.string().nullable(),
  strategy: strategyStateSchema.nullable(),
  grid: gridStateSchema.nullable(),
  conflicts: z.array(conflictStateSchema),
  checks: z.array(checkRecordSchema),
  /** Each check's outcome on the tips (and on the fork/upstream commits of cells that needed one): failures not blamed. */
  baselines: z.array(baselineSchema).default([]),
  acceptedFailures: z.array(acceptedFailureSchema).default([]),
  /** 1-based number of the attempt in progress; 0 before the first. */
  currentAttempt: z.number().int().nonnegative(),
  attempts: z.array(attemptRecordSchema),
  /** A recovery decided but not yet executed. */
  pendingRecovery: recoveryDecisionSchema.nullable(),
  usage: z.object({
    resolver: usageTotalsSchema,
    /** States written before the reviewer role have none: nothing was spent on it. */
    reviewer: usageTotalsSchema.default(emptyUsage),
    summarizer: usageTotalsSchema,
    planner: usageTotalsSchema,
  }),
  /** What the person was given at the run's hand-off, while it waits for them. */
  handoff: handoffSchema.nullable(),
  finalCommit: oid.nullable(),
  /** The recovery loop's state, one sub-record per concern (flow-data.ts). */
  data: flowDataSchema.default({}),
  /** The effective configuration stored at `merge` (null in states written before it was). */
  config: storedConfigSchema.nullable().default(null),
  /** The survival audit of the final merge (the fork's and upstream's whole deltas), once it is made. */
  finalDrops: finalDropsSchema.optional(),
});
export type RunState = z.infer<typeof runStateSchema>;

/** What a new run is: its name, what merges into what, where. */
export interface NewRun {
  name: string;
  upstream: { ref: string; oid: string };
  fork: { branch: string; originalOid: string };
  workdir: string;
  goal?: RunState['goal'];
  config?: RunState['config'];
}

export interface NewRunState extends NewRun {
  /** The first node. */
  phase: string;
  now: Date;
}

/** A fresh state for a run that is starting. */
export function initialRunState(input: NewRunState): RunState {
  const at = input.now.toISOString();
  return {
    version: RUN_STATE_VERSION,
    name: input.name,
    upstream: input.upstream,
    fork: input.fork,
    workdir: input.workdir,
    goal: input.goal ?? 'merge',
    startedAt: at,
    updatedAt: at,
    phase: input.phase,
    step: 0,
    status: 'running',
    statusReason: null,
    strategy: null,
    grid: null,
    conflicts: [],
    checks: [],
    baselines: [],
    acceptedFailures: [],
    currentAttempt: 0,
    attempts: [],
    pendingRecovery: null,
    usage: emptyRoleUsage(),
    handoff: null,
    finalCommit: null,
    data: {},
    config: input.config ?? null,
  };
}

/** The spec `readJsonFile` / `writeJsonFile` take for `state.json`. */
export const runStateFile = {
  schema: z.preprocess(currentRunState, runStateSchema) as z.ZodType<RunState>,
  version: RUN_STATE_VERSION,
};
