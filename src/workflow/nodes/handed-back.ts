import type { ConflictState } from '../../store/run-state.js';

/** A conflict a person settled, in part or whole: a hunk of theirs, or a file-level choice they made. */
function settledByPerson(c: ConflictState): boolean {
  return c.files.some((f) => f.decidedBy === 'person' || f.hunks.some((h) => h.rung === 'person'));
}

/**
 * A conflict the fork's policy (`resolve.paths`) settled, with a person's help at most: resolved
 * again, the policy gives the same answer, so no rung can redo what a check failed on.
 */
export function settledByPolicy(c: ConflictState): boolean {
  const rungs = c.files.flatMap((f) => (f.hunks.length > 0 ? f.hunks.map((h) => h.rung) : [f.decidedBy ?? null]));
  return rungs.includes('policy') && rungs.every((r) => r === 'policy' || r === 'person');
}

/**
 * Whether a check failing on this conflict's resolution goes back to a person, the resolution in
 * place: a person's (no rung redoes what they wrote) or the policy's (it would write the same).
 */
export function handedBack(c: ConflictState): boolean {
  return settledByPerson(c) || settledByPolicy(c);
}
