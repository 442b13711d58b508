import * as z from 'zod';

/**
 * The words as earlier versions stored them in a run's state and journal. The sides: the fork
 * under the key `target` and upstream under `source`, in the state and its `run_started` event,
 * read as `fork` and `upstream`. The person's words as earlier versions stored them in a run's state and journal: the hand-off
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

/** `v` with its key `from` under `to`, where it has `from` and not yet `to`. */
function renamedKey(v: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  if (!Object.hasOwn(v, from) || Object.hasOwn(v, to)) return v;
  const { [from]: value, ...rest } = v;
  return { ...rest, [to]: value };
}

/** A run's sides in today's spelling: the fork was stored under `target`, upstream under `source`. */
function currentSides(v: Record<string, unknown>): Record<string, unknown> {
  return renamedKey(renamedKey(v, 'target', 'fork'), 'source', 'upstream');
}

/**
 * A stored run state's top level in today's spelling: the hand-off was stored under `human`, the
 * fork under `target` and upstream under `source`.
 */
export function currentRunState(v: unknown): unknown {
  if (!isRecord(v)) return v;
  return currentSides(renamedKey(v, 'human', 'handoff'));
}

/**
 * A stored journal event in today's spelling: the hand-off's event was `human_needed`, and
 * `run_started` named the fork `target` and upstream `source`.
 */
export function currentEvent(v: unknown): unknown {
  if (!isRecord(v)) return v;
  if (v.type === 'human_needed') return { ...v, type: 'person_needed' };
  return v.type === 'run_started' ? currentSides(v) : v;
}
