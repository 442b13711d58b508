import * as z from 'zod';

/** One line of a side's change that a resolution lost: dropped (added, gone), restored (removed, back) or rewritten. */
const dropLineSchema = z.object({
  kind: z.enum(['dropped', 'restored', 'rewritten']),
  /** 1-based: in the side for a dropped or rewritten line, in the base for a restored one. */
  line: z.number().int().positive(),
  text: z.string(),
});

/** What a resolution lost of one side's change to a file: counts, and the first lines (bounded). */
const sideDropsSchema = z.object({
  dropped: z.number().int().nonnegative(),
  restored: z.number().int().nonnegative(),
  rewritten: z.number().int().nonnegative(),
  /** The side deleted the file and the resolution keeps it, or the resolution deleted the file the side changed. */
  file: z.enum(['deletion-undone', 'file-deleted']).optional(),
  lines: z.array(dropLineSchema),
});

/**
 * The survival audit of one resolved file as the run keeps it: per side what was lost (absent
 * when nothing was), or why the file was not audited. Only files that lost something are kept, so
 * the state stays small.
 */
export const fileDropsSchema = z.object({
  ours: sideDropsSchema.optional(),
  theirs: sideDropsSchema.optional(),
  skipped: z.enum(['too-large', 'binary']).optional(),
});
export type FileDrops = z.infer<typeof fileDropsSchema>;
export type SideDrops = z.infer<typeof sideDropsSchema>;

/** The audit of the final merge: the fork's and upstream's whole deltas against the merge result, by file. */
export const finalDropsSchema = z.object({
  files: z.array(z.object({ path: z.string().min(1), drops: fileDropsSchema })),
  /** Files changed on both sides that were not audited: over the cap of files audited at once. */
  notAudited: z.number().int().nonnegative(),
});
export type FinalDrops = z.infer<typeof finalDropsSchema>;
