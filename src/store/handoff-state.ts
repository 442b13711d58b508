/**
 * The stored shape of a hand-off: what a person is asked to do when the run stops for them (the run
 * state's `handoff`). It lives in store/ because the run state's schema does (layers: store is below
 * workflow); the hand-off's logic and text are the module `src/workflow/handoff/`.
 */
import * as z from 'zod';
import { oid } from './state-primitives.js';
import { HUNKS_KEY } from './stored-hunks.js';

/** What the target branch's past merges suggest for one hunk, with the evidence and the command that takes it. */
const handoffSuggestionSchema = z.object({
  /** ours, theirs, ours then theirs, theirs then ours. */
  choice: z.string(),
  command: z.string(),
  evidence: z.string(),
  /** `similar` (earlier conflicts on the same lines) or `habit` (earlier conflicts of the same shape in the same place). */
  basis: z.string(),
  agree: z.number().int().nonnegative(),
  of: z.number().int().nonnegative(),
});

/** One conflict hunk left in a file: its number (what `splintercat take` takes), where it is, the one-command answers. */
const handoffHunkSchema = z.object({
  hunk: z.number().int().positive(),
  startLine: z.number().int().positive(),
  endLine: z.number().int().positive(),
  /** `splintercat take ...` for ours, theirs, both (each order) and base. */
  take: z.record(z.string(), z.string()),
  suggestion: handoffSuggestionSchema.optional(),
});
export type HandoffHunk = z.infer<typeof handoffHunkSchema>;

/** One file a person is asked to settle, with what to do, to the letter. */
const handoffFileSchema = z.object({
  /** Relative to the conflict's worktree. */
  path: z.string().min(1),
  /** FileConflictKind (content, modify/delete, add/add, rename/delete, binary, mode, ...). */
  kind: z.string(),
  /** Conflict hunks left in the file (content and add/add). */
  hunks: z.number().int().nonnegative().optional(),
  instructions: z.string(),
  /** The exact commands of a file-level choice, run in the worktree (e.g. keep: `git add -- PATH`, delete: `git rm -q -- PATH`). */
  choices: z.record(z.string(), z.string()).optional(),
  /** Each hunk left, with its one-command answers and what the past merges suggest (stored-hunks.ts). */
  [HUNKS_KEY]: z.array(handoffHunkSchema).optional(),
});
export type HandoffFile = z.infer<typeof handoffFileSchema>;

/** The failed check that brought a person back to a conflict they (or a rung) resolved. */
const handoffFailureSchema = z.object({
  check: z.string(),
  logFile: z.string(),
  /** The failure summary's one line (`test_failure at test/x.js:12: ...`). */
  summary: z.string(),
  excerpt: z.string(),
  /** Where the failure points to a file git merged cleanly at this cell (no conflict there). */
  cleanlyMerged: z.array(z.string()).default([]),
});

/** One conflict of a hand-off: its worktree, every file with its kind, and why it is here. */
export const handoffConflictSchema = z.object({
  /** `I1-I2`. */
  conflict: z.string(),
  worktree: z.string(),
  files: z.array(handoffFileSchema),
  failure: handoffFailureSchema.nullable().default(null),
  /** What the resolver model tried and why it was refused, one line per attempt. */
  model: z.array(z.string()).default([]),
  /** Generated files git merged cleanly at this cell that are no longer valid (a package pinned twice, ...). */
  warnings: z.array(z.string()).optional(),
  /** Why the last `continue` did not take the person's edit (markers left, unchanged, ...). */
  refused: z.array(z.string()).default([]),
  /** The resolution tree a failed check blamed, presented to amend: `continue` refuses it unchanged. */
  blamedTree: oid.optional(),
});
export type HandoffConflict = z.infer<typeof handoffConflictSchema>;

export const handoffSchema = z.object({
  reason: z.string(),
  /** Absolute paths of every file to settle (kept for compatibility; `conflicts` says what to do with each). */
  files: z.array(z.string()),
  /** `cd DIR   # comment` lines, then the one command to run next. */
  commands: z.array(z.string()),
  /** The worktree or working tree the person edits. */
  where: z.string().nullable(),
  conflicts: z.array(handoffConflictSchema).default([]),
  /** When a failed check brought the person here: the command that accepts the failure instead of amending. */
  accept: z.string().optional(),
  /** How many more conflicts are expected after these (imerge/conflict-estimate.ts), of how many in all. */
  expected: z
    .object({
      more: z.number().int().nonnegative(),
      total: z.number().int().nonnegative(),
      /** The range of the total (workflow/estimate.ts); absent in hand-offs of older runs, high null when unbounded. */
      low: z.number().int().nonnegative().optional(),
      high: z.number().int().nonnegative().nullable().optional(),
    })
    .optional(),
});
export type Handoff = z.infer<typeof handoffSchema>;
