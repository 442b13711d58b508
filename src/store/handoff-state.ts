import * as z from 'zod';
import { oid } from './state-primitives.js';

/** What a person is asked to do when the run stops for them (the run state's `human`). */

/** One file a person is asked to settle, with what to do, to the letter. */
export const handoffFileSchema = z.object({
  /** Relative to the conflict's worktree. */
  path: z.string().min(1),
  /** FileConflictKind (content, modify/delete, add/add, rename/delete, binary, mode, ...). */
  kind: z.string(),
  /** Conflict blocks left in the file (content and add/add). */
  hunks: z.number().int().nonnegative().optional(),
  instructions: z.string(),
  /** The exact commands of a file-level choice, run in the worktree (e.g. keep: `git add -- PATH`, delete: `git rm -q -- PATH`). */
  choices: z.record(z.string(), z.string()).optional(),
});
export type HandoffFile = z.infer<typeof handoffFileSchema>;

/** The failed check that brought a person back to a conflict they (or a rung) resolved. */
export const handoffFailureSchema = z.object({
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

export const humanHandoffSchema = z.object({
  reason: z.string(),
  /** Absolute paths of every file to settle (kept for compatibility; `conflicts` says what to do with each). */
  files: z.array(z.string()),
  /** `cd DIR   # comment` lines, then the one command to run next. */
  commands: z.array(z.string()),
  /** The worktree or working tree the human edits. */
  where: z.string().nullable(),
  conflicts: z.array(handoffConflictSchema).default([]),
  /** When a failed check brought the person here: the command that accepts the failure instead of amending. */
  accept: z.string().optional(),
});
export type HumanHandoff = z.infer<typeof humanHandoffSchema>;
