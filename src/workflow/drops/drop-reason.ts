import type { ConflictFileState } from '../../store/run-state.js';

/** What a person kept, when it was an explicit choice of a side (a `take`), not text of their own. */
const EXPLICIT_CHOICES = new Set(['ours', 'theirs', 'base', 'ours then theirs', 'theirs then ours', 'both']);

type Hunk = ConflictFileState['hunks'][number];

/** The recorded reason for one hunk's answer, or null: a policy, a person's explicit `take`. */
function hunkReason(h: Hunk): string | null {
  if (h.rung === 'policy') return `the policy (${h.by ?? '?'})`;
  if (h.rung === 'human' && h.choice !== undefined && EXPLICIT_CHOICES.has(h.choice))
    return `a person's take ${h.choice}`;
  return null;
}

/**
 * Why a file's resolution may drop a side's change, as recorded: the policy's choice of a side, a
 * person's explicit `take` (or their keep-or-delete choice of a file); null when some hunk was
 * answered without one (a rule, the syntax merge, the model, the cache, a person's own text), so
 * its drops are flagged for review. A file-level choice made by the policy or a person is a reason.
 */
export function dropReason(file: ConflictFileState): string | null {
  if (file.hunks.length === 0) {
    if (file.decidedBy === 'policy') return file.note ?? 'the policy';
    if (file.decidedBy === 'human') return "a person's choice of the file";
    return null;
  }
  const reasons = file.hunks.map(hunkReason);
  if (reasons.some((r) => r === null)) return null;
  return [...new Set(reasons)].join(', ');
}

/** Who decided a file's resolution, in a few words: `rule keep-both-additions`, `a person (theirs)`, `model m`. */
export function decidedBy(file: ConflictFileState): string {
  const who = file.hunks.map((h) => {
    if (h.rung === 'human') return h.choice ? `a person (${h.choice})` : 'a person';
    if (h.rung === 'rule' || h.rung === 'model') return `${h.rung} ${h.by ?? '?'}`;
    return h.rung === null ? 'nobody yet' : `${h.rung}${h.by ? ` (${h.by})` : ''}`;
  });
  if (who.length === 0) return file.decidedBy ? `${file.decidedBy === 'human' ? 'a person' : file.decidedBy}` : 'git';
  return [...new Set(who)].join(', ');
}
