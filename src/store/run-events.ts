import * as z from 'zod';
import type { JournalInput } from './journal.js';
import { personChoicesSchema } from './flow-choices.js';
import { modelRoleSchema } from './model-role.js';
import { fileDropsSchema } from './drops-state.js';
import { currentEvent, statusSchema } from './old-spellings.js';
import { withStoredRung } from './rung.js';
import {
  acceptedFailureSchema,
  attemptRecordSchema,
  cellSchema,
  checkRecordSchema,
  deciderSchema,
  failureSummarySchema,
  gridStateSchema,
  handoffConflictSchema,
  rungSchema,
  runStateSchema,
  runStatusSchema,
} from './run-state.js';

/**
 * The events of `events.jsonl`, one zod schema per `type`. Every event has `seq` and `ts`
 * (added by the journal). The journal is the account of a run (report, status, SSE UI) and,
 * with the refs, enough to rebuild `state.json` (`doctor --rebuild`), so the events that
 * change state carry the values they set.
 */
const base = { seq: z.number().int().positive(), ts: z.string() };

const runStartedEvent = z.object({
  ...base,
  type: z.literal('run_started'),
  name: z.string(),
  upstream: runStateSchema.shape.upstream,
  fork: runStateSchema.shape.fork,
  workdir: z.string(),
  goal: runStateSchema.shape.goal,
  phase: z.string(),
  /** The run's configuration as stored at `merge` (absent in journals written before it was). */
  config: runStateSchema.shape.config,
});

const nodeEnteredEvent = z.object({
  ...base,
  type: z.literal('node_entered'),
  node: z.string(),
  step: z.number().int(),
});

const nodeFinishedEvent = z.object({
  ...base,
  type: z.literal('node_finished'),
  node: z.string(),
  next: z.string(),
  step: z.number().int(),
  durationMs: z.number().nonnegative(),
});

/** The machine stopped: how and where it resumes. */
const runOutcomeEvent = z.object({
  ...base,
  type: z.literal('run_outcome'),
  outcome: statusSchema(['done', 'stopped', 'needs_person', 'failed']),
  node: z.string(),
  reason: z.string().nullable(),
});

const decisionEvent = z.object({
  ...base,
  type: z.literal('decision'),
  /** What was decided: strategy, recovery, ... */
  kind: z.string(),
  by: deciderSchema,
  decision: z.string(),
  reasoning: z.string(),
  batchSize: z.number().int().positive().nullable().optional(),
  conflicts: z.array(z.string()).optional(),
});

export const toolCallEvent = z.object({
  ...base,
  type: z.literal('tool_call'),
  tool: z.string(),
  conflict: z.string().nullable(),
  input: z.json(),
  ok: z.boolean(),
  /** A bounded excerpt of the tool's answer. */
  output: z.string().optional(),
  /** The conflicted file of the conversation, and its model turn (resolver calls). */
  path: z.string().optional(),
  turn: z.number().int().nonnegative().optional(),
});

/** One resolver conversation about one file of a conflict: the model's reasoning and how it ended. */
const resolverTranscriptEvent = z.object({
  ...base,
  type: z.literal('resolver_transcript'),
  conflict: z.string(),
  path: z.string(),
  modelId: z.string().nullable(),
  ok: z.boolean(),
  /** Why the conversation gave up (null when it resolved the file). */
  failure: z.object({ reason: z.string(), message: z.string() }).nullable(),
  turns: z.number().int().nonnegative(),
  /** The model's text and reasoning, turn by turn (each bounded). */
  reasoning: z.array(z.string()),
  recoveries: z.array(z.string()),
});

const checkStartedEvent = z.object({
  ...base,
  type: z.literal('check_started'),
  name: z.string(),
  cell: cellSchema.nullable(),
  attempt: z.number().int().nonnegative(),
});

const checkFinishedEvent = z.object({ ...base, type: z.literal('check_finished'), check: checkRecordSchema });

const modelUsageEvent = z.object({
  ...base,
  type: z.literal('model_usage'),
  role: modelRoleSchema,
  modelId: z.string(),
  conflict: z.string().nullable(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  costSource: z.enum(['reported', 'price', 'unknown']),
});

const conflictFoundEvent = z.object({
  ...base,
  type: z.literal('conflict_found'),
  conflict: z.string(),
  cell: cellSchema,
  files: z.array(z.object({ path: z.string(), kind: z.string(), hunks: z.number().int().nonnegative() })),
});

const conflictResolvedEvent = z.object({
  ...base,
  type: z.literal('conflict_resolved'),
  conflict: z.string(),
  cell: cellSchema,
  attempt: z.number().int().nonnegative(),
  files: z.array(
    z.object({
      path: z.string(),
      /** The file's conflict kind (content, modify/delete, ...); optional, for journals written before it. */
      kind: z.string().optional(),
      hunks: z.array(
        withStoredRung(
          z.object({
            index: z.number().int().positive(),
            rung: rungSchema,
            by: z.string(),
            /** The resolution cache entry of the hunk, so a resolution adopted from the journal can still be blamed. */
            cacheKey: z.string().optional(),
          }),
        ),
      ),
      /** What the resolution dropped of each side (the survival audit), so a rebuilt or reconciled record keeps it. */
      drops: fileDropsSchema.optional(),
    }),
  ),
  tree: z.string().nullable(),
  commit: z.string().nullable(),
  /** Files a person changed at the hand-off beyond the conflict's own files (theirs, kept and checked). */
  outsideEdits: z.array(z.string()).optional(),
});

const conflictBlamedEvent = z.object({
  ...base,
  type: z.literal('conflict_blamed'),
  conflict: z.string(),
  reason: z.string(),
});

const gridUpdatedEvent = z.object({ ...base, type: z.literal('grid_updated'), grid: gridStateSchema });

const attemptFinishedEvent = z.object({
  ...base,
  type: z.literal('attempt_finished'),
  attempt: attemptRecordSchema,
});

/** The person's keep-or-delete file choices of the run as they now stand (the last one holds). */
const personChoicesEvent = z.object({ ...base, type: z.literal('person_choices'), choices: personChoicesSchema });

const failureSummarizedEvent = z.object({
  ...base,
  type: z.literal('failure_summarized'),
  check: z.string(),
  summary: failureSummarySchema,
  by: z.enum(['parser', 'model']),
});

const personNeededEvent = z.object({
  ...base,
  type: z.literal('person_needed'),
  reason: z.string(),
  files: z.array(z.string()),
  commands: z.array(z.string()),
  /** Every conflict with its files, their kinds and what to do (absent in journals of older runs). */
  conflicts: z.array(handoffConflictSchema).optional(),
});

/**
 * The run's estimates at a hand-off (the first and every tenth): the conflicts expected in all, with
 * their range, and the time left with the parts it counts, so the report can set them against what happened.
 */
const estimateEvent = z.object({
  ...base,
  type: z.literal('estimate'),
  handoff: z.number().int().positive(),
  conflicts: z.object({
    expected: z.number().int().nonnegative(),
    low: z.number().int().nonnegative(),
    high: z.number().int().nonnegative().nullable(),
    known: z.number().int().nonnegative(),
    basis: z.enum(['grid', 'tips', 'known']),
  }),
  done: z.number().int().nonnegative(),
  /** Milliseconds left as estimated and its parts (null before anything was measured; `personMs` null until the person's pace is). */
  leftMs: z.number().nonnegative().nullable(),
  parts: z
    .object({
      runMs: z.number().nonnegative(),
      checksMs: z.number().nonnegative(),
      personMs: z.number().nonnegative().nullable(),
      finalMs: z.number().nonnegative(),
      /** The end: the merge commit and the worktrees' removal (absent in journals of older runs). */
      finishMs: z.number().nonnegative().optional(),
    })
    .nullable(),
  handoffsLeft: z.number().int().nonnegative(),
});

/** A person accepted a failed check as expected at a step of the merge (`continue --accept-failure`). */
const failureAcceptedEvent = z.object({
  ...base,
  type: z.literal('failure_accepted'),
  accepted: acceptedFailureSchema,
});

const statusChangedEvent = z.object({
  ...base,
  type: z.literal('status_changed'),
  status: runStatusSchema,
  reason: z.string().nullable(),
});

const finalizedEvent = z.object({ ...base, type: z.literal('finalized'), commit: z.string() });

/** A node's side effect recorded once (`ctx.once`): replays after a kill reuse `value`. */
const effectEvent = z.object({ ...base, type: z.literal('effect'), key: z.string(), value: z.json() });

/**
 * Worktrees the run removed (resolved conflicts' as it goes, all that are left at the end): how
 * many, how long that took, and how many of the run's worktrees are still on disk after.
 */
const worktreesRemovedEvent = z.object({
  ...base,
  type: z.literal('worktrees_removed'),
  count: z.number().int().positive(),
  durationMs: z.number().nonnegative(),
  left: z.number().int().nonnegative(),
});

/** doctor --repair / --rebuild changed the state. */
const stateRepairedEvent = z.object({
  ...base,
  type: z.literal('state_repaired'),
  how: z.enum(['restore-backup', 'auto-repair', 'rebuild']),
  repairs: z.array(z.string()),
});

export const runEventSchema = z.discriminatedUnion('type', [
  runStartedEvent,
  nodeEnteredEvent,
  nodeFinishedEvent,
  runOutcomeEvent,
  decisionEvent,
  toolCallEvent,
  resolverTranscriptEvent,
  checkStartedEvent,
  checkFinishedEvent,
  modelUsageEvent,
  conflictFoundEvent,
  conflictResolvedEvent,
  conflictBlamedEvent,
  gridUpdatedEvent,
  attemptFinishedEvent,
  personChoicesEvent,
  failureSummarizedEvent,
  personNeededEvent,
  estimateEvent,
  failureAcceptedEvent,
  statusChangedEvent,
  finalizedEvent,
  effectEvent,
  stateRepairedEvent,
  worktreesRemovedEvent,
]);
export type RunEvent = z.infer<typeof runEventSchema>;
/** An event as passed to `journal.append` (without seq/ts). */
export type RunEventInput = JournalInput<RunEvent>;

/** The journal line parser for `new Journal<RunEvent>(path, { parse: parseRunEvent })`. */
export function parseRunEvent(value: unknown): RunEvent | undefined {
  const parsed = runEventSchema.safeParse(currentEvent(value));
  return parsed.success ? parsed.data : undefined;
}
