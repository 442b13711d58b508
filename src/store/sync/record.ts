import { createHash } from 'node:crypto';
import * as z from 'zod';

/**
 * One record of a run shared through a remote: a fact that only ever accumulates. The kinds are
 * what several machines add to one run: `cell` (a grid cell merged into a commit), `resolution`
 * (a conflict's resolved tree and who made it), `check` (a check's outcome on a commit),
 * `accepted-failure` (failing tests a person accepted at a conflict). Its identity is its kind
 * and `key` (what makes two records the same fact); `body` says the rest, `by` and `at` who and when.
 */
const recordKinds = ['cell', 'resolution', 'check', 'accepted-failure'] as const;
export type RecordKind = (typeof recordKinds)[number];

const json = z.json();

export const syncRecordSchema = z.object({
  kind: z.enum(recordKinds),
  /** sha256 of the kind and canonical key: the record's name in every tree. */
  id: z.string().regex(/^[0-9a-f]{64}$/),
  key: z.record(z.string(), json),
  body: z.record(z.string(), json).default({}),
  /** The machine that recorded it first. */
  by: z.string(),
  at: z.string(),
});
export type SyncRecord = z.infer<typeof syncRecordSchema>;

/** A record as a caller makes it: id, machine and time are added when it is stored. */
export interface NewRecord {
  kind: RecordKind;
  key: Record<string, z.infer<typeof json>>;
  body?: Record<string, z.infer<typeof json>>;
}

/** JSON with object keys sorted at every level: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The identity of a record: the same kind and key give the same id on every machine. */
export function recordId(kind: RecordKind, key: NewRecord['key']): string {
  return createHash('sha256')
    .update(`${kind}\0${canonicalJson(key)}`)
    .digest('hex');
}

/** Where a record lives in a records tree: by kind, then sharded by the id's first two digits. */
export function recordPath(record: Pick<SyncRecord, 'kind' | 'id'>): string {
  return `${record.kind}/${record.id.slice(0, 2)}/${record.id}.json`;
}

/** The stored form of a record (canonical JSON and a newline), so equal records are equal blobs. */
export function recordText(record: SyncRecord): string {
  return `${canonicalJson(record)}\n`;
}

/**
 * Of two records with one id that differ (two machines stored the same fact with different
 * details), the one kept everywhere: the earlier, then the smaller text. A pure function of the
 * two, so every machine combining them keeps the same one.
 */
export function preferredRecord(a: SyncRecord, b: SyncRecord): SyncRecord {
  if (a.at !== b.at) return a.at < b.at ? a : b;
  return recordText(a) <= recordText(b) ? a : b;
}
