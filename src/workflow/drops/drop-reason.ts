import { DECIDED_ONCE_NOTE } from '../../store/flow-choices.js';
import type { ConflictFileState } from '../../store/run-state.js';
import { unknownRung, type Rung } from '../../store/rung.js';

/** What a person kept, when it was an explicit choice of a side (a `take`), not text of their own. */
const EXPLICIT_CHOICES = new Set(['ours', 'theirs', 'base', 'ours then theirs', 'theirs then ours', 'both']);

type Hunk = ConflictFileState['hunks'][number];

/** The recorded reason for one hunk's answer, or null: a policy, a learnt choice, a person's explicit `take`. */
function hunkReason(h: Hunk): string | null {
  switch (h.rung) {
    case 'policy':
    case 'learnt':
      // A learnt answer was recorded as the policy's before it had a rung of its own: its words stay.
      return `the policy (${h.by ?? '?'})`;
    case 'person':
      return h.choice !== undefined && EXPLICIT_CHOICES.has(h.choice) ? `a person's take ${h.choice}` : null;
    case 'cache':
    case 'generated':
    case 'rule':
    case 'syntax':
    case 'model':
    case null:
      return null;
    default:
      return unknownRung(h.rung);
  }
}

/**
 * Why a file's resolution may drop a side's change, as recorded: the policy's choice of a side, a
 * person's explicit `take` (or their keep-or-delete choice of a file); null when some hunk was
 * answered without one (a rule, the syntax merge, the model, the cache, a person's own text), so
 * its drops are flagged for review. A file-level choice made by the policy or a person is a reason.
 */
export function dropReason(file: ConflictFileState): string | null {
  if (file.hunks.length === 0) return fileReason(file);
  const reasons = file.hunks.map(hunkReason);
  if (reasons.some((r) => r === null)) return null;
  return [...new Set(reasons)].join(', ');
}

/** The recorded reason for a file decided whole (no hunks): the policy's or a person's choice, else null. */
function fileReason(file: ConflictFileState): string | null {
  const rung = file.decidedBy ?? null;
  // A side a person took at an earlier conflict of the merge, taken again: their choice, not the cache's guess.
  if (rung === 'cache' && file.note?.startsWith(DECIDED_ONCE_NOTE)) return file.note;
  switch (rung) {
    case 'policy':
    case 'generated':
      return file.note ?? 'the policy';
    case 'person':
      return "a person's choice of the file";
    case 'cache':
    case 'rule':
    case 'syntax':
    case 'learnt':
    case 'model':
    case null:
      return null;
    default:
      return unknownRung(rung);
  }
}

/** Who decided a file without hunks, by the rung of the stage that settled it. */
const FILE_DECIDER: Record<Rung, string> = {
  cache: 'cache',
  policy: 'policy',
  generated: 'generated',
  rule: 'rule',
  syntax: 'syntax',
  learnt: 'learnt',
  model: 'model',
  person: 'a person',
};

/** Who decided a file's resolution, in a few words: `rule keep-both-additions`, `a person (theirs)`, `model m`. */
export function decidedBy(file: ConflictFileState): string {
  const who = file.hunks.map(hunkDecider);
  if (who.length === 0) return file.decidedBy ? FILE_DECIDER[file.decidedBy] : 'git';
  return [...new Set(who)].join(', ');
}

/** Who answered one hunk, in a few words. */
function hunkDecider(h: Hunk): string {
  switch (h.rung) {
    case 'person':
      return h.choice ? `a person (${h.choice})` : 'a person';
    case 'rule':
    case 'model':
      return `${h.rung} ${h.by ?? '?'}`;
    case null:
      return 'nobody yet';
    case 'cache':
    case 'policy':
    case 'generated':
    case 'syntax':
    case 'learnt':
      return `${h.rung}${h.by ? ` (${h.by})` : ''}`;
    default:
      return unknownRung(h.rung);
  }
}
