/**
 * The hand-off to a person, in one place: what the run asks of them when the ladder cannot settle a
 * conflict (each file's instructions, hunks and one-command answers, the failed check that brought
 * them back), how the run stops for them, the text they read, and how their work is taken at `continue`.
 * The stored shape of a hand-off is `store/handoff-state.ts`: the run state's schema lives below this layer.
 */
export { amendEntry, amendFiles } from './amend.js';
export { suggestionHint, withHunks } from './hunks.js';
export { continueCommand } from './commands.js';
export { handoffFailure } from './failure.js';
export { handoffFile, keepOrDelete } from './file.js';
export { handoffAsLeft } from './left-now.js';
export { modelAttempts } from './model-attempts.js';
export { handoffToPerson } from './stop.js';
export { takePersonsWork } from './take-work.js';
export { handoffLines } from './text.js';
