import * as z from 'zod';
import { SIDES } from './side.js';

const choiceKeySchema = z.object({ path: z.string(), key: z.string() });
export type ChoiceKey = z.infer<typeof choiceKeySchema>;

/**
 * A person's keep-or-delete choices of whole files: those handed to them (by conflict) and those
 * they made (by blob ids), so a later cell of the run does not ask again. Written by the resolve
 * node (the hand-off) and by taking the person's work.
 */
export const personChoicesSchema = z.object({
  /** File-level choices a person made in this run, by `path kind base:ours:theirs` blob ids. */
  fileChoices: z.record(z.string(), z.enum(['keep', 'delete'])).optional(),
  /** The keep-or-delete choices handed to a person, by conflict id (remembered in `fileChoices` once taken). */
  handoffChoices: z.record(z.string(), z.array(choiceKeySchema)).optional(),
  /**
   * Files decided once for the whole merge, by path: a person took one side's whole file (a
   * lockfile, a generated file, or any file taken whole with `take ours|theirs FILE`), and every
   * later conflict on the path in this merge takes the same side. Only this clone's own records
   * write it: a shared run's remote never does.
   */
  wholeFiles: z.record(z.string(), z.object({ side: z.enum(SIDES), conflict: z.string() })).optional(),
});

/** How the note of a file settled by a side decided once for the merge begins (the ladder writes it, the drops audit reads it). */
export const DECIDED_ONCE_NOTE = 'decided once for this merge';

/** A file decided once for the whole merge: the side taken and the conflict it was taken at. */
export type WholeFileDecision = { side: (typeof SIDES)[number]; conflict: string };

/** A state holding this sub-record in its `data` (flow-data.ts). */
type Holder = { data: { choices?: z.infer<typeof personChoicesSchema> } };

export interface PersonChoices {
  fileChoices: Record<string, 'keep' | 'delete'>;
  handoffChoices: Record<string, ChoiceKey[]>;
  wholeFiles: Record<string, WholeFileDecision>;
}

/** The person's file choices of a run. */
export function personChoicesOf(state: Holder): PersonChoices {
  const c = state.data.choices ?? {};
  return { fileChoices: c.fileChoices ?? {}, handoffChoices: c.handoffChoices ?? {}, wholeFiles: c.wholeFiles ?? {} };
}

/** The state with the person's file choices replaced. */
function withPersonChoices<S extends Holder>(state: S, patch: Partial<PersonChoices>): S {
  return { ...state, data: { ...state.data, choices: { ...state.data.choices, ...patch } } };
}

/**
 * The state with the person's file choices replaced, journalled whole so `doctor --rebuild`
 * gives them back (a later cell does not ask the person again).
 */
export function withRecordedChoices<S extends Holder>(
  state: S,
  journal: { append(event: { type: 'person_choices'; choices: PersonChoices }): void },
  patch: Partial<PersonChoices>,
): S {
  const next = withPersonChoices(state, patch);
  journal.append({ type: 'person_choices', choices: personChoicesOf(next) });
  return next;
}
