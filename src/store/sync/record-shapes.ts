import * as z from 'zod';
import { rungSchema, withStoredRung } from '../rung.js';
import { recordId, syncRecordSchema, type SyncRecord } from './record.js';

/**
 * The shape each kind of record must have before anything uses it: a record comes from any
 * machine with push access to the remote, so its fields are checked, not cast. Fields a later
 * version may add are let through; those the reader uses are typed.
 */

const objectId = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);
const cell = z.string().regex(/^(0|[1-9][0-9]{0,5})-(0|[1-9][0-9]{0,5})$/);
/** When a record was stored, as `toISOString` writes it. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
/** A name or a time shown to a person: one line of printable length. */
const label = z.string().max(512);

/**
 * A path inside the repository, as git writes it: relative, normalised (no empty, `.` or `..`
 * component), without a `.git` component, a backslash or a control character.
 */
const repoPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => repoPathProblem(path) === null, { message: 'not a path inside the repository' });

/** Why `path` is not a plain relative path inside a repository, or null. */
export function repoPathProblem(path: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return 'a control character or a backslash';
  if (path.startsWith('/')) return 'absolute';
  for (const part of path.split('/')) {
    if (part === '' || part === '.' || part === '..') return `a '${part}' component`;
    if (part.toLowerCase() === '.git') return 'a .git component';
  }
  return null;
}

const resolutionFile = z.looseObject({
  path: repoPath,
  kind: label.default('content'),
  decidedBy: rungSchema.nullable().default(null),
  hunks: z
    .array(
      withStoredRung(
        z.looseObject({
          index: z.number().int().positive().max(1_000_000),
          rung: rungSchema.nullable().default(null),
          by: label.nullable().default(null),
        }),
      ),
    )
    .max(100_000)
    .default([]),
});

const shapes = {
  cell: { key: z.looseObject({ cell, commit: objectId }), body: z.looseObject({}) },
  resolution: {
    key: z.looseObject({ conflict: cell, tree: objectId }),
    body: z.looseObject({
      commit: objectId.nullable().optional(),
      files: z.array(resolutionFile).max(100_000).default([]),
      person: label.optional(),
      machine: label.optional(),
    }),
  },
  check: { key: z.looseObject({ check: label, commit: objectId }), body: z.looseObject({}) },
  'accepted-failure': { key: z.looseObject({ check: label }), body: z.looseObject({}) },
} as const;

/** A resolution record's files, as the record carries them (typed by its shape). */
export type PublishedFile = z.infer<typeof resolutionFile>;

/**
 * A stored record checked for what its readers rely on: the common fields, its kind's key and
 * body, an id that is the digest of its kind and key (a record cannot pass for another), no NUL
 * in any string, and its path in the tree (`where`) the one its id gives. Why not, when it is not.
 */
export function checkRecord(
  value: unknown,
  where: string,
): { ok: true; record: SyncRecord } | { ok: false; why: string } {
  const base = syncRecordSchema.safeParse(value);
  if (!base.success) return { ok: false, why: `not a record (${firstIssue(base.error)})` };
  const record = base.data;
  if (hasNul(record)) return { ok: false, why: 'a string holds a NUL byte' };
  // Which of two copies of one fact every clone keeps is decided by `at`: a time, not any text.
  if (!label.safeParse(record.by).success) return { ok: false, why: 'its machine is not a name of printable length' };
  if (!ISO_TIME.test(record.at) || !Number.isFinite(Date.parse(record.at)))
    return { ok: false, why: 'its time is not an ISO time' };
  const shape = shapes[record.kind];
  const key = shape.key.safeParse(record.key);
  if (!key.success) return { ok: false, why: `a ${record.kind} record with a bad key (${firstIssue(key.error)})` };
  const body = shape.body.safeParse(record.body);
  if (!body.success) return { ok: false, why: `a ${record.kind} record with a bad body (${firstIssue(body.error)})` };
  if (recordId(record.kind, record.key) !== record.id) return { ok: false, why: 'its id is not the digest of its key' };
  if (where !== `${record.kind}/${record.id.slice(0, 2)}/${record.id}.json`)
    return { ok: false, why: 'stored under another path than its id' };
  return { ok: true, record };
}

/** The files of a resolution record's body (checked by `checkRecord`), typed. */
export function resolutionFiles(record: SyncRecord): PublishedFile[] {
  const parsed = shapes.resolution.body.safeParse(record.body);
  return parsed.success ? parsed.data.files : [];
}

function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(hasNul);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).some(([k, v]) => k.includes('\0') || hasNul(v));
  return false;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  // The path names keys of the record itself: only their plain characters are repeated.
  const path = issue.path
    .map((p) =>
      String(p)
        .replace(/[^\w.-]/g, '?')
        .slice(0, 40),
    )
    .join('.');
  return `${path ? `${path}: ` : ''}${issue.message.replace(/[^\x20-\x7e]/g, '?').slice(0, 200)}`;
}
