import * as z from 'zod';

/**
 * The person's words as earlier versions stored them in a run's state and journal: the hand-off
 * under the key `human`, the status `needs_human`, the event `human_needed` and a person's
 * decision by `user`. Every reader of a stored run goes through these, so a run an earlier
 * version started goes on; what is written is today's spelling (`handoff`, `needs_person`,
 * `person_needed`, `person`). The person's rung is read the same way in rung.ts.
 */

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stored status (of a run, a conflict, a hunk, an outcome) in today's spelling. */
function currentStatus(v: unknown): unknown {
  return v === 'needs_human' ? 'needs_person' : v;
}

/** An enum of statuses that reads `needs_human` as `needs_person`. */
export function statusSchema<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(currentStatus, z.enum(values));
}

/** An enum of deciders that reads the person's stored `user` as `person`. */
export function deciderEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess((v) => (v === 'user' ? 'person' : v), z.enum(values));
}

/** A stored run state's top level in today's spelling: the hand-off was stored under `human`. */
export function currentRunState(v: unknown): unknown {
  if (!isRecord(v) || !Object.hasOwn(v, 'human') || Object.hasOwn(v, 'handoff')) return v;
  const { human, ...rest } = v;
  return { ...rest, handoff: human };
}

/** A stored journal event in today's spelling: the hand-off's event was `human_needed`. */
export function currentEvent(v: unknown): unknown {
  return isRecord(v) && v.type === 'human_needed' ? { ...v, type: 'person_needed' } : v;
}
